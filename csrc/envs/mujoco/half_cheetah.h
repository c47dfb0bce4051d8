// HalfCheetah-v4 / HalfCheetah-v5: gymnasium.envs.mujoco.half_cheetah_v4 / half_cheetah_v5.
#pragma once

#include "forward_motion.h"

namespace envhive::mujoco {

// The cheetah's root is (x, z, angle): only x is a position the observation may omit.
inline constexpr ForwardMotionTask kHalfCheetahTask{
    .xml = "half_cheetah.xml",
    .frame_skip = 5,
    .ctrl_cost_weight = 0.1,
    .exclude_doc = "Omit the root x from the observation.",
    .root_position_size = 1,
    .normal_qvel = true,
};

class HalfCheetahEnv final : public ForwardMotionEnv<kHalfCheetahTask> {
 public:
  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, obs_size(m, p));
    s.infos = float64_infos({"x_position", "x_velocity", p.v5 ? "reward_forward" : "reward_run", "reward_ctrl"});
    return s;
  }

  HalfCheetahEnv(ModelPtr model, const Params& p) : ForwardMotionEnv(std::move(model), p) {}

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    return {reward(x_velocity_, a), false};
  }

  void write_info(void* const* dst) const override {
    put_infos(dst, {d_->qpos[0], x_velocity_, forward_reward_, reward_ctrl_});
  }
};

}  // namespace envhive::mujoco
