// What Gymnasium's Hopper and Walker2d (v4 and v5) share: a planar body whose root is qpos[0:3]
// = (x, z, angle), rewarded for forward velocity plus a healthy bonus minus a float32 control
// cost, healthy while z and the angle stay in range. Their kwargs, step, observation, infos and
// reset are the same code in Gymnasium, so both are PlanarWalkerEnv; hopper.h and walker2d.h
// hold what tells them apart (a PlanarWalkerTask).
#pragma once

#include <optional>
#include <utility>

#include "mujoco_env.h"

namespace envhive::mujoco {

// The model and kwarg defaults that tell one planar walker from the other.
struct PlanarWalkerTask {
  const char* body_name;  // in kwarg docs: "Terminate when the <body_name> is unhealthy."
  const char* xml_v4;     // the model v4 always uses
  const char* xml_v5;     // v5's xml_file default
  std::pair<double, double> healthy_z_range, healthy_angle_range;
  // Hopper only: the range (exclusive) qpos[2:] and qvel must stay in to be healthy.
  std::optional<std::pair<double, double>> healthy_state_range;
};

// params() reads every field from the config (config() and the task hold the defaults).
struct PlanarWalkerParams {
  bool v5 = true;
  CommonParams common;
  double forward_reward_weight = 0.0, ctrl_cost_weight = 0.0, healthy_reward = 0.0;
  bool terminate_when_unhealthy = true;
  std::optional<std::pair<double, double>> healthy_state_range;  // set for Hopper only
  std::pair<double, double> healthy_z_range, healthy_angle_range;
  double reset_noise_scale = 0.0;
  bool exclude_current_positions = true;
};

template <const PlanarWalkerTask& kTask>
class PlanarWalkerEnv final : public MujocoEnv {
 public:
  using Params = PlanarWalkerParams;

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f = model_fields(v5, kTask.xml_v5, 4);
    f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 1e-3, "Weight of the control cost."});
    f.push_back({"healthy_reward", 1.0, "Reward per step while healthy."});
    f.push_back(
        {"terminate_when_unhealthy", true, std::string("Terminate when the ") + kTask.body_name + " is unhealthy."});
    if (kTask.healthy_state_range)
      f.push_back({"healthy_state_range", range_default(*kTask.healthy_state_range),
                   "Healthy range (exclusive) of qpos[2:] and qvel."});
    f.push_back({"healthy_z_range", range_default(kTask.healthy_z_range), "Healthy torso heights (exclusive)."});
    f.push_back({"healthy_angle_range", range_default(kTask.healthy_angle_range), "Healthy torso angles (exclusive)."});
    f.push_back({"reset_noise_scale", 5e-3, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x from the observation."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, v5 ? kTask.xml_v5 : kTask.xml_v4, 4);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.healthy_reward = c.real("healthy_reward");
    p.terminate_when_unhealthy = c.flag("terminate_when_unhealthy");
    if (kTask.healthy_state_range) p.healthy_state_range = range_param(c, "healthy_state_range");
    p.healthy_z_range = range_param(c, "healthy_z_range");
    p.healthy_angle_range = range_param(c, "healthy_angle_range");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = mujoco_spaces(m, m.nq + m.nv - (p.exclude_current_positions ? 1 : 0));
    if (p.v5)
      s.infos = float64_infos({"x_position", "z_distance_from_origin", "x_velocity", "reward_forward", "reward_ctrl",
                              "reward_survive"});
    else
      s.infos = float64_infos({"x_position", "x_velocity"});
    return s;
  }

  PlanarWalkerEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;  // nothing reads cacc / cfrc_*
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->qpos[0];
    do_simulation(a);
    x_velocity_ = (d_->qpos[0] - x_before) / dt_;
    const bool healthy = is_healthy();
    const float ctrl_cost = action_ctrl_cost(a, p_.ctrl_cost_weight);
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
    if (p_.v5)
      put_infos(dst, {d_->qpos[0], d_->qpos[1] - init_qpos_[1], x_velocity_, forward_reward_, reward_ctrl_,
                      healthy_reward_});
    else
      put_infos(dst, {d_->qpos[0], x_velocity_});
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    x_velocity_ = forward_reward_ = healthy_reward_ = reward_ctrl_ = 0.0;
  }

 private:
  static std::vector<double> range_default(const std::pair<double, double>& r) { return {r.first, r.second}; }

  // z and angle strictly inside their ranges; for Hopper also every qpos[2:] and qvel entry.
  bool is_healthy() const {
    const double z = d_->qpos[1], angle = d_->qpos[2];
    bool ok = p_.healthy_z_range.first < z && z < p_.healthy_z_range.second && p_.healthy_angle_range.first < angle &&
              angle < p_.healthy_angle_range.second;
    if (p_.healthy_state_range) {
      const auto [smin, smax] = *p_.healthy_state_range;
      for (int i = 2; i < m_->nq; ++i) ok = ok && smin < d_->qpos[i] && d_->qpos[i] < smax;
      for (int i = 0; i < m_->nv; ++i) ok = ok && smin < d_->qvel[i] && d_->qvel[i] < smax;
    }
    return ok;
  }

  Params p_;
  double x_velocity_ = 0, forward_reward_ = 0, healthy_reward_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
