// box-close-v3: pick a box's lid up and put it on the box.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class BoxClose final : public SawyerEnv {
 public:
  BoxClose(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    top_ = body("top_link");
    box_ = body("boxbody");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const double box_height = body_xpos(box_)[2];
    const RandVec v = draw_apart<250>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], npcompat::f32(0.02)};  // init_config's float32 z
    target_pos_ = {v[3], v[4], v[5]};
    set_model_body_pos(box_, {target_pos_[0], target_pos_[1], box_height});
    for (int i = 0; i < kFrameSkip; ++i) mj_step(m_, d_);
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(top_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(top_, out);
    return 4;
  }
  static std::pair<double, double> reward_pos(const double* obs, const Vec3& target) {
    const Vec3 hand = vec3(obs);
    const Vec3 lid = vec3(obs + 4) + Vec3{0.0, 0.0, 0.02};
    const double threshold = 0.02;
    const double radius = norm(hand - lid, 2);
    const double floor = radius <= threshold ? 0.0 : 0.04 * np_log(radius - threshold) + 0.4;
    const double above_floor = hand[2] >= floor ? 1.0 : tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place = tolerance(norm(hand - lid), 0, 0.02, 0.5);
    const double ready_to_lift = hamacher_product(above_floor, in_place);
    const Vec3 pos_error = target - lid;
    const Vec3 scaled{pos_error[0] * 1.0, pos_error[1] * 1.0, pos_error[2] * 3.0};
    const double lifted = 0.2 * static_cast<double>(lid[2] > 0.04) + 0.8 * tolerance(norm(scaled), 0, 0.05, 0.25);
    return {ready_to_lift, lifted};
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    float a = action[3];  // float(np.clip((np.clip(a3, -1, 1) + 1.0) / 2.0, 0.0, 1.0)), in float32
    if (!std::isnan(a)) a = a < -1.0f ? -1.0f : (a > 1.0f ? 1.0f : a);
    float g = (a + 1.0f) / 2.0f;
    if (!std::isnan(g)) g = g < 0.0f ? 0.0f : (g > 1.0f ? 1.0f : g);
    const double grab = static_cast<double>(g);
    const double d[4] = {obs[7] - 0.707, obs[8] - 0, obs[9] - 0, obs[10] - 0.707};
    const double q = 1.0 - norm(d, 4) / 0.2;
    const double quat = 0.0 > q ? 0.0 : q;
    const auto [ready, lifted] = reward_pos(obs, target_pos_);
    double reward = 2.0 * hamacher_product(grab, ready) + 8.0 * lifted;
    const bool success = norm(vec3(obs + 4) - target_pos_) < 0.08;
    if (success) reward = 10.0;
    reward *= quat;
    Eval e;
    e.reward = py(reward);
    e.success = success;
    e.near_object = ready;
    e.grasp_success = grab >= 0.5;
    e.grasp_reward = grab;
    e.in_place_reward = lifted;
    e.obj_to_target = 0;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int top_ = -1, box_ = -1, goal_site_ = -1;
};

}  // namespace

TaskEntry box_close_task() {
  TaskInfo t;
  t.name = "box-close-v3";
  t.xml = "sawyer_xyz/sawyer_box.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.05, 0.5, 0.02, -0.1, 0.7, 0.133};
  t.rand_high = {0.05, 0.55, 0.02, 0.1, 0.8, 0.133};
  t.goal_low = {-0.1, 0.7, 0.133};
  t.goal_high = {0.1, 0.8, 0.133};
  return {t, &draw_apart<250>, &make_env<BoxClose>};
}

}  // namespace envhive::metaworld
