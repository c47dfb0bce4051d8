// basketball-v3: pick a ball up and drop it through a hoop. The reference's target is a live view of
// data.site("goal").xpos, and each reset_model writes that world position into the site's local
// position (model.site("goal").pos): the offset accumulates over resets, and so it does here.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Basketball final : public SawyerEnv {
 public:
  Basketball(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    ball_ = body("bsktball");
    basket_ = body("basket_goal");
    goal_site_ = site("goal");
    obj_init_pos_ = {0, 0.6, npcompat::f32(0.03)};  // init_config (float32): its z is every episode's
  }

 protected:
  static constexpr double kTargetRadius = 0.08;
  Vec3 pos_goal() const override { return site_xpos(goal_site_); }
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], obj_init_pos_[2]};
    set_model_body_pos(basket_, {v[3], v[4], v[5]});
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, site_xpos(goal_site_));
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(ball_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(ball_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    Vec3 target = site_xpos(goal_site_);
    target[2] = 0.3;
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 1.0, a[1] * 1.0, a[2] * 2.0}; };
    const double target_to_obj = norm(scaled(obj - target));
    const double target_to_obj_init = norm(scaled(obj_init_pos_ - target));
    const double in_place = tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    Num object_grasped = gripper_caging_reward(action, obj, 0.025, 0.06, 0.01, 0.005, 1.0, true);
    const bool holding = tcp_to_obj < 0.035 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (holding) object_grasped = py(1.0);
    Num reward = hamacher_product(object_grasped, py(in_place));
    if (holding) reward = reward + py(1.0 + 5.0 * in_place);
    if (target_to_obj < kTargetRadius) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int ball_ = -1, basket_ = -1, goal_site_ = -1;
};

}  // namespace

TaskEntry basketball_task() {
  TaskInfo t;
  t.name = "basketball-v3";
  t.xml = "sawyer_xyz/sawyer_basketball.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.0299, -0.1, 0.85, 0.0};
  t.rand_high = {0.1, 0.7, 0.0301, 0.1, 0.9 + 1e-07, 0.0};
  t.goal_low = Vec3{-0.1, 0.85, 0.0} + Vec3{0, -0.083, 0.2499};
  t.goal_high = Vec3{0.1, 0.9 + 1e-07, 0.0} + Vec3{0, -0.083, 0.2501};
  return {t, &draw_apart<150>, &make_env<Basketball>};
}

}  // namespace envhive::metaworld
