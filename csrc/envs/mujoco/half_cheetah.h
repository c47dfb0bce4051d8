// HalfCheetah-v4 / HalfCheetah-v5: gymnasium.envs.mujoco.half_cheetah_v4 / half_cheetah_v5.
#pragma once

#include "mujoco_env.h"

namespace envhive::mujoco {

class HalfCheetahEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double forward_reward_weight = 1.0, ctrl_cost_weight = 0.1, reset_noise_scale = 0.1;
    bool exclude_current_positions = true;
  };

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f;
    if (v5) {
      f.push_back({"xml_file", std::string("half_cheetah.xml"), "MuJoCo model: a file in Gymnasium's assets or a path."});
      f.push_back({"frame_skip", int64_t{5}, "MuJoCo steps per env step."});
    }
    f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 0.1, "Weight of the control cost."});
    f.push_back({"reset_noise_scale", 0.1, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x from the observation."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "half_cheetah.xml", 5);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, m.nq + m.nv - (p.exclude_current_positions ? 1 : 0));
    s.infos = {{"x_position", DType::kFloat64, {}},
               {"x_velocity", DType::kFloat64, {}},
               {p.v5 ? "reward_forward" : "reward_run", DType::kFloat64, {}},
               {"reward_ctrl", DType::kFloat64, {}}};
    return s;
  }

  HalfCheetahEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;  // nothing reads cacc / cfrc_*
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    const float ctrl_cost = static_cast<float>(p_.ctrl_cost_weight) * np_sum_squares(a, static_cast<size_t>(m_->nu));
    forward_reward_ = p_.forward_reward_weight * x_velocity_;
    reward_ctrl_ = -static_cast<double>(ctrl_cost);
    return {forward_reward_ - static_cast<double>(ctrl_cost), false};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    const size_t skip = p_.exclude_current_positions ? 1 : 0;
    w.put(d_->qpos + skip, static_cast<size_t>(m_->nq) - skip);
    w.put(d_->qvel, static_cast<size_t>(m_->nv));
  }

  void write_info(void* const* dst) const override {
    put_info(dst[0], d_->qpos[0]);
    put_info(dst[1], x_velocity_);
    put_info(dst[2], forward_reward_);
    put_info(dst[3], reward_ctrl_);
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/true);
    x_velocity_ = forward_reward_ = reward_ctrl_ = 0.0;
  }

 private:
  Params p_;
  double x_velocity_ = 0, forward_reward_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
