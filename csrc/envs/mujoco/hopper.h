// Hopper-v4 / Hopper-v5: gymnasium.envs.mujoco.hopper_v4 / hopper_v5.HopperEnv.
#pragma once

#include <limits>

#include "mujoco_env.h"

namespace envhive::mujoco {

class HopperEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double forward_reward_weight = 1.0, ctrl_cost_weight = 1e-3, healthy_reward = 1.0;
    bool terminate_when_unhealthy = true;
    std::pair<double, double> healthy_state_range{-100.0, 100.0},
        healthy_z_range{0.7, std::numeric_limits<double>::infinity()}, healthy_angle_range{-0.2, 0.2};
    double reset_noise_scale = 5e-3;
    bool exclude_current_positions = true;
  };

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f;
    if (v5) {
      f.push_back({"xml_file", std::string("hopper.xml"), "MuJoCo model: a file in Gymnasium's assets or a path."});
      f.push_back({"frame_skip", int64_t{4}, "MuJoCo steps per env step."});
    }
    f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 1e-3, "Weight of the control cost."});
    f.push_back({"healthy_reward", 1.0, "Reward per step while healthy."});
    f.push_back({"terminate_when_unhealthy", true, "Terminate when the hopper is unhealthy."});
    f.push_back({"healthy_state_range", std::vector<double>{-100.0, 100.0},
                 "Healthy range (exclusive) of qpos[2:] and qvel."});
    f.push_back({"healthy_z_range", std::vector<double>{0.7, std::numeric_limits<double>::infinity()},
                 "Healthy torso heights (exclusive)."});
    f.push_back({"healthy_angle_range", std::vector<double>{-0.2, 0.2}, "Healthy torso angles (exclusive)."});
    f.push_back({"reset_noise_scale", 5e-3, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x from the observation."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "hopper.xml", 4);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.healthy_reward = c.real("healthy_reward");
    p.terminate_when_unhealthy = c.flag("terminate_when_unhealthy");
    p.healthy_state_range = range_param(c, "healthy_state_range");
    p.healthy_z_range = range_param(c, "healthy_z_range");
    p.healthy_angle_range = range_param(c, "healthy_angle_range");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, m.nq + m.nv - (p.exclude_current_positions ? 1 : 0));
    if (p.v5)
      s.infos = {{"x_position", DType::kFloat64, {}}, {"z_distance_from_origin", DType::kFloat64, {}},
                 {"x_velocity", DType::kFloat64, {}}, {"reward_forward", DType::kFloat64, {}},
                 {"reward_ctrl", DType::kFloat64, {}}, {"reward_survive", DType::kFloat64, {}}};
    else
      s.infos = {{"x_position", DType::kFloat64, {}}, {"x_velocity", DType::kFloat64, {}}};
    return s;
  }

  HopperEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    const bool healthy = is_healthy();
    const float ctrl_cost = static_cast<float>(p_.ctrl_cost_weight) * np_sum_squares(a, static_cast<size_t>(m_->nu));
    forward_reward_ = p_.forward_reward_weight * x_velocity_;
    healthy_reward_ = p_.v5 ? (healthy ? p_.healthy_reward : 0.0)
                            : static_cast<double>(healthy || p_.terminate_when_unhealthy) * p_.healthy_reward;
    reward_ctrl_ = -static_cast<double>(ctrl_cost);
    const double rewards = forward_reward_ + healthy_reward_;
    return {rewards - static_cast<double>(ctrl_cost), !healthy && p_.terminate_when_unhealthy};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    const size_t skip = p_.exclude_current_positions ? 1 : 0;
    w.put(d_->qpos + skip, static_cast<size_t>(m_->nq) - skip);
    w.put_clipped(d_->qvel, static_cast<size_t>(m_->nv), -10.0, 10.0);
  }

  void write_info(void* const* dst) const override {
    if (p_.v5) {
      put_info(dst[0], d_->qpos[0]);
      put_info(dst[1], d_->qpos[1] - init_qpos_[1]);
      put_info(dst[2], x_velocity_);
      put_info(dst[3], forward_reward_);
      put_info(dst[4], reward_ctrl_);
      put_info(dst[5], healthy_reward_);
    } else {
      put_info(dst[0], d_->qpos[0]);
      put_info(dst[1], x_velocity_);
    }
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    x_velocity_ = forward_reward_ = healthy_reward_ = reward_ctrl_ = 0.0;
  }

 private:
  bool is_healthy() const {
    const double z = d_->qpos[1], angle = d_->qpos[2];
    const auto [smin, smax] = p_.healthy_state_range;
    bool ok = true;
    for (int i = 2; i < m_->nq; ++i) ok = ok && smin < d_->qpos[i] && d_->qpos[i] < smax;
    for (int i = 0; i < m_->nv; ++i) ok = ok && smin < d_->qvel[i] && d_->qvel[i] < smax;
    ok = ok && p_.healthy_z_range.first < z && z < p_.healthy_z_range.second;
    ok = ok && p_.healthy_angle_range.first < angle && angle < p_.healthy_angle_range.second;
    return ok;
  }

  Params p_;
  double x_velocity_ = 0, forward_reward_ = 0, healthy_reward_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
