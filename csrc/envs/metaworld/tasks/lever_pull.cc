// lever-pull-v3: pull a lever up a quarter turn.
#include <cmath>

#include "object_task.h"

namespace envhive::metaworld {
namespace {

constexpr double kPi = npcompat::kPi;

class LeverPull final : public SawyerEnv {
 public:
  LeverPull(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.4, 0.2);
    lever_ = body("lever");
    start_ = site("leverStart");
    goal_site_ = site("goal");
    axis_qpos_ = m_->jnt_qposadr[joint("LeverAxis")];
  }

 protected:
  static constexpr double kLeverRadius = 0.2;
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_model_body_pos(lever_, obj_init_pos_);
    lever_pos_init_ = obj_init_pos_ + Vec3{0.12, -kLeverRadius, 0.25};
    target_pos_ = obj_init_pos_ + Vec3{0.12, 0.0, 0.25 + kLeverRadius};
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(start_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(obj_geom_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 gripper = vec3(obs), lever = vec3(obs + 4);
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 4.0, a[1] * 1.0, a[2] * 4.0}; };
    const Vec3 offset{0.0, 0.055, 0.07};
    const Vec3 shoulder_to_lever = scaled(gripper + offset - lever);
    const Vec3 shoulder_to_lever_init = scaled(init_tcp_ + offset - lever_pos_init_);
    const double ready_to_lift = tolerance(norm(shoulder_to_lever), 0, 0.02, norm(shoulder_to_lever_init));
    const double lever_angle = -d_->qpos[axis_qpos_];
    const double lever_error = std::abs(lever_angle - kPi / 2.0);
    const double engagement = tolerance(lever_error, 0, kPi / 48.0, kPi / 2.0 - kPi / 12.0);
    const double obj_to_target = norm(lever - target_pos_);
    const double in_place_margin = norm(lever_pos_init_ - target_pos_);
    const double in_place = tolerance(obj_to_target, 0, 0.04, in_place_margin);
    const double reward = 10.0 * hamacher_product(ready_to_lift, in_place);
    const double shoulder_dist = norm(shoulder_to_lever);
    Eval e;
    e.reward = py(reward);
    e.success = lever_error <= kPi / 24;
    e.near_object = shoulder_dist < 0.03;
    e.grasp_success = ready_to_lift > 0.9;
    e.grasp_reward = ready_to_lift;
    e.in_place_reward = engagement;
    e.obj_to_target = shoulder_dist;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int lever_ = -1, start_ = -1, goal_site_ = -1, axis_qpos_ = 0;
  Vec3 lever_pos_init_{};
};

}  // namespace

TaskEntry lever_pull_task() {
  TaskInfo t;
  t.name = "lever-pull-v3";
  t.xml = "sawyer_xyz/sawyer_lever_pull.xml";
  t.hand_low = {-0.5, 0.40, -0.15};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.7, 0.0};
  t.rand_high = {0.1, 0.8, 0.0};
  t.goal_low = t.hand_low;
  t.goal_high = t.hand_high;
  return {t, &draw_once, &make_env<LeverPull>};
}

}  // namespace envhive::metaworld
