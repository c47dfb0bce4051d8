// Swimmer-v4 / Swimmer-v5: gymnasium.envs.mujoco.swimmer_v4 / swimmer_v5.SwimmerEnv.
#pragma once

#include "mujoco_env.h"

namespace envhive::mujoco {

class SwimmerEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double forward_reward_weight = 1.0, ctrl_cost_weight = 1e-4, reset_noise_scale = 0.1;
    bool exclude_current_positions = true;
  };

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f;
    if (v5) {
      f.push_back({"xml_file", std::string("swimmer.xml"), "MuJoCo model: a file in Gymnasium's assets or a path."});
      f.push_back({"frame_skip", int64_t{4}, "MuJoCo steps per env step."});
    }
    f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 1e-4, "Weight of the control cost."});
    f.push_back({"reset_noise_scale", 0.1, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x/y from the observation."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "swimmer.xml", 4);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, m.nq + m.nv - (p.exclude_current_positions ? 2 : 0));
    if (p.v5)
      s.infos = {{"x_position", DType::kFloat64, {}}, {"y_position", DType::kFloat64, {}},
                 {"distance_from_origin", DType::kFloat64, {}}, {"x_velocity", DType::kFloat64, {}},
                 {"y_velocity", DType::kFloat64, {}}, {"reward_forward", DType::kFloat64, {}},
                 {"reward_ctrl", DType::kFloat64, {}}};
    else
      s.infos = {{"reward_fwd", DType::kFloat64, {}}, {"reward_ctrl", DType::kFloat64, {}},
                 {"x_position", DType::kFloat64, {}}, {"y_position", DType::kFloat64, {}},
                 {"distance_from_origin", DType::kFloat64, {}}, {"x_velocity", DType::kFloat64, {}},
                 {"y_velocity", DType::kFloat64, {}}, {"forward_reward", DType::kFloat64, {}}};
    return s;
  }

  SwimmerEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0], y_before = d_->qpos[1];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    y_velocity_ = (d_->qpos[1] - y_before) / dt_;
    forward_reward_ = p_.forward_reward_weight * x_velocity_;
    const float ctrl_cost = static_cast<float>(p_.ctrl_cost_weight) * np_sum_squares(a, static_cast<size_t>(m_->nu));
    reward_ctrl_ = -static_cast<double>(ctrl_cost);
    return {forward_reward_ - static_cast<double>(ctrl_cost), false};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    const size_t skip = p_.exclude_current_positions ? 2 : 0;
    w.put(d_->qpos + skip, static_cast<size_t>(m_->nq) - skip);
    w.put(d_->qvel, static_cast<size_t>(m_->nv));
  }

  void write_info(void* const* dst) const override {
    const double* q = d_->qpos;
    if (p_.v5) {
      put_info(dst[0], q[0]);
      put_info(dst[1], q[1]);
      put_info(dst[2], np_norm(q, 2));
      put_info(dst[3], x_velocity_);
      put_info(dst[4], y_velocity_);
      put_info(dst[5], forward_reward_);
      put_info(dst[6], reward_ctrl_);
    } else {
      put_info(dst[0], forward_reward_);
      put_info(dst[1], reward_ctrl_);
      put_info(dst[2], q[0]);
      put_info(dst[3], q[1]);
      put_info(dst[4], np_norm(q, 2));
      put_info(dst[5], x_velocity_);
      put_info(dst[6], y_velocity_);
      put_info(dst[7], forward_reward_);
    }
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    x_velocity_ = y_velocity_ = forward_reward_ = reward_ctrl_ = 0.0;
  }

 private:
  Params p_;
  double x_velocity_ = 0, y_velocity_ = 0, forward_reward_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
