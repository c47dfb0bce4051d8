// Swimmer-v4 / Swimmer-v5: gymnasium.envs.mujoco.swimmer_v4 / swimmer_v5.SwimmerEnv.
#pragma once

#include "forward_motion.h"

namespace envhive::mujoco {

// The swimmer's root slides in x and y (qpos[0:2]); its infos also report the y velocity.
inline constexpr ForwardMotionTask kSwimmerTask{
    .xml = "swimmer.xml",
    .frame_skip = 4,
    .ctrl_cost_weight = 1e-4,
    .exclude_doc = "Omit the root x/y from the observation.",
    .root_position_size = 2,
    .normal_qvel = false,
};

class SwimmerEnv final : public ForwardMotionEnv<kSwimmerTask> {
 public:
  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, obs_size(m, p));
    if (p.v5)
      s.infos = float64_infos({"x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity",
                               "reward_forward", "reward_ctrl"});
    else
      s.infos = float64_infos({"reward_fwd", "reward_ctrl", "x_position", "y_position", "distance_from_origin",
                               "x_velocity", "y_velocity", "forward_reward"});
    return s;
  }

  SwimmerEnv(ModelPtr model, const Params& p) : ForwardMotionEnv(std::move(model), p) {}

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0], y_before = d_->qpos[1];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    y_velocity_ = (d_->qpos[1] - y_before) / dt_;
    return {reward(x_velocity_, a), false};
  }

  void write_info(void* const* dst) const override {
    const double* q = d_->qpos;
    if (p_.v5)
      put_infos(dst, {q[0], q[1], np_norm(q, 2), x_velocity_, y_velocity_, forward_reward_, reward_ctrl_});
    else
      put_infos(dst, {forward_reward_, reward_ctrl_, q[0], q[1], np_norm(q, 2), x_velocity_, y_velocity_,
                      forward_reward_});
  }

 protected:
  void reset_model() override {
    ForwardMotionEnv::reset_model();
    y_velocity_ = 0.0;
  }

 private:
  double y_velocity_ = 0;
};

}  // namespace envhive::mujoco
