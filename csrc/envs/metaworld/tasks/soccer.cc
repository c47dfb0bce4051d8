// soccer-v3: kick a ball into a goal.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Soccer final : public SawyerEnv {
 public:
  Soccer(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0.0, 0.6, 0.2};
    ball_ = body("soccer_ball");
    goal_whole_ = body("goal_whole");
    goal_site_ = site("goal");
    obj_init_pos_ = {0, 0.6, 0.03};  // init_config: its z is every episode's
  }

 protected:
  static constexpr double kObjRadius = 0.013, kTargetRadius = 0.07;
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], obj_init_pos_[2]};
    set_model_body_pos(goal_whole_, target_pos_);
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(ball_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    quat_from_matrix(d_->xmat + 9 * ball_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 3.0, a[1] * 1.0, a[2] * 1.0}; };
    const double tcp_to_obj = norm(obj - tcp_center());
    const double target_to_obj = norm(scaled(obj - target_pos_));
    const double target_to_obj_init = norm(scaled(obj - obj_init_pos_));
    double in_place = tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double goal_line = target_pos_[1] - 0.1;
    if (obj[1] > goal_line && std::abs(obj[0] - target_pos_[0]) > 0.1)
      in_place = npcompat::np_clip(in_place - 2 * ((obj[1] - goal_line) / (1 - goal_line)), 0.0, 1.0);
    const double object_grasped = pad_caging_reward(obj, kObjRadius, 0.01, 0.005);
    double reward = 3 * object_grasped + 6.5 * in_place;
    if (target_to_obj < kTargetRadius) reward = 10.0;
    const double obj_to_target = norm(obj - target_pos_);
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int ball_ = -1, goal_whole_ = -1, goal_site_ = -1;
};

}  // namespace

TaskEntry soccer_task() {
  TaskInfo t;
  t.name = "soccer-v3";
  t.xml = "sawyer_xyz/sawyer_soccer.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.03, -0.1, 0.8, 0.0};
  t.rand_high = {0.1, 0.7, 0.03, 0.1, 0.9, 0.0};
  t.goal_low = {-0.1, 0.8, 0.0};
  t.goal_high = {0.1, 0.9, 0.0};
  return {t, &draw_apart<150>, &make_env<Soccer>};
}

}  // namespace envhive::metaworld
