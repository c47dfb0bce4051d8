// Ant-v4 / Ant-v5: gymnasium.envs.mujoco.ant_v4 / ant_v5.AntEnv.
#pragma once

#include <cmath>

#include "mujoco_env.h"

namespace envhive::mujoco {

class AntEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double forward_reward_weight = 1.0, ctrl_cost_weight = 0.5, contact_cost_weight = 5e-4;
    double healthy_reward = 1.0;
    int64_t main_body = 1;
    bool terminate_when_unhealthy = true;
    std::pair<double, double> healthy_z_range{0.2, 1.0}, contact_force_range{-1.0, 1.0};
    double reset_noise_scale = 0.1;
    bool exclude_current_positions = true;
    bool include_cfrc_ext = true;     // v5
    bool use_contact_forces = false;  // v4
  };

  static std::vector<ConfigField> config(bool v5) {
    std::vector<ConfigField> f;
    f.push_back(xml_file_field("ant.xml"));
    if (v5) f.push_back(frame_skip_field(5));
    if (v5) f.push_back({"forward_reward_weight", 1.0, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 0.5, "Weight of the control cost."});
    if (!v5) f.push_back({"use_contact_forces", false, "Add cfrc_ext to the observation and the contact cost to the reward."});
    f.push_back({"contact_cost_weight", 5e-4, "Weight of the contact cost."});
    f.push_back({"healthy_reward", 1.0, "Reward per step while healthy."});
    if (v5) f.push_back({"main_body", int64_t{1}, "Body id whose x/y displacement gives the forward reward."});
    f.push_back({"terminate_when_unhealthy", true, "Terminate when the torso leaves healthy_z_range."});
    f.push_back({"healthy_z_range", std::vector<double>{0.2, 1.0}, "Healthy torso heights (inclusive)."});
    f.push_back({"contact_force_range", std::vector<double>{-1.0, 1.0}, "Clip range of contact forces."});
    f.push_back({"reset_noise_scale", 0.1, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the torso x/y from the observation."});
    if (v5) f.push_back({"include_cfrc_ext_in_observation", true, "Add cfrc_ext (without the world body) to the observation."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "ant.xml", 5);
    if (v5) p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.contact_cost_weight = c.real("contact_cost_weight");
    p.healthy_reward = c.real("healthy_reward");
    if (v5) p.main_body = c.integer("main_body");
    p.terminate_when_unhealthy = c.flag("terminate_when_unhealthy");
    p.healthy_z_range = range_param(c, "healthy_z_range");
    p.contact_force_range = range_param(c, "contact_force_range");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    if (v5) p.include_cfrc_ext = c.flag("include_cfrc_ext_in_observation");
    if (!v5) p.use_contact_forces = c.flag("use_contact_forces");
    return p;
  }

  static int64_t obs_size(const mjModel& m, const Params& p) {
    int64_t n = m.nq + m.nv - (p.exclude_current_positions ? 2 : 0);
    if (p.v5 && p.include_cfrc_ext) n += (m.nbody - 1) * 6;
    if (!p.v5 && p.use_contact_forces) n += m.nbody * 6;
    return n;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    if (p.v5 && (p.main_body < 0 || p.main_body >= m.nbody))
      throw std::invalid_argument("main_body " + std::to_string(p.main_body) + " is not a body id of the model");
    Spaces s = mujoco_spaces(m, obs_size(m, p));
    if (p.v5)
      s.infos = float64_infos({"x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity",
                              "reward_forward", "reward_ctrl", "reward_contact", "reward_survive"});
    else
      s.infos = float64_infos({"reward_forward", "reward_ctrl", "reward_survive", "x_position", "y_position",
                              "distance_from_origin", "x_velocity", "y_velocity", "forward_reward"});
    return s;
  }

  AntEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    main_body_ = p.v5 ? static_cast<int>(p.main_body) : body_id("torso");
    post_constraint_ = true;  // cfrc_ext feeds the contact cost and the observation
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const double x_before = d_->xpos[3 * main_body_], y_before = d_->xpos[3 * main_body_ + 1];
    do_simulation(a);
    const double x_after = d_->xpos[3 * main_body_], y_after = d_->xpos[3 * main_body_ + 1];
    x_velocity_ = (x_after - x_before) / dt_;
    y_velocity_ = (y_after - y_before) / dt_;
    const bool healthy = is_healthy();
    const float ctrl_cost = action_ctrl_cost(a, p_.ctrl_cost_weight);
    StepResult r;
    if (p_.v5) {
      forward_reward_ = x_velocity_ * p_.forward_reward_weight;
      healthy_reward_ = healthy ? p_.healthy_reward : 0.0;
      const double rewards = forward_reward_ + healthy_reward_;
      contact_cost_ = contact_cost();
      const double costs = static_cast<double>(ctrl_cost) + contact_cost_;
      r.reward = rewards - costs;
      reward_ctrl_ = -static_cast<double>(ctrl_cost);
      r.terminated = !healthy && p_.terminate_when_unhealthy;
    } else {
      xy_after_[0] = x_after;
      xy_after_[1] = y_after;
      forward_reward_ = x_velocity_;
      healthy_reward_ = static_cast<double>(healthy || p_.terminate_when_unhealthy) * p_.healthy_reward;
      const double rewards = forward_reward_ + healthy_reward_;
      double costs = static_cast<double>(ctrl_cost);
      reward_ctrl_ = -static_cast<double>(ctrl_cost);
      if (p_.use_contact_forces) {
        contact_cost_ = contact_cost();
        costs += contact_cost_;
        reward_ctrl_ = -contact_cost_;  // sic: Gymnasium's Ant-v4 reports the contact cost here
      }
      r.reward = rewards - costs;
      r.terminated = p_.terminate_when_unhealthy ? !healthy : false;
    }
    return r;
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    put_qpos_qvel(w, p_.exclude_current_positions ? 2 : 0);
    const auto [lo, hi] = p_.contact_force_range;
    if (p_.v5 && p_.include_cfrc_ext) w.put_clipped(d_->cfrc_ext + 6, static_cast<size_t>(m_->nbody - 1) * 6, lo, hi);
    if (!p_.v5 && p_.use_contact_forces) w.put_clipped(d_->cfrc_ext, static_cast<size_t>(m_->nbody) * 6, lo, hi);
  }

  void write_info(void* const* dst) const override {
    const double* q = d_->qpos;
    if (p_.v5)
      put_infos(dst, {q[0], q[1], np_norm(q, 2), x_velocity_, y_velocity_, forward_reward_, reward_ctrl_,
                      -contact_cost_, healthy_reward_});
    else
      put_infos(dst, {forward_reward_, reward_ctrl_, healthy_reward_, xy_after_[0], xy_after_[1],
                      np_norm(xy_after_, 2), x_velocity_, y_velocity_, forward_reward_});
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/true);
    x_velocity_ = y_velocity_ = forward_reward_ = healthy_reward_ = reward_ctrl_ = contact_cost_ = 0.0;
    xy_after_[0] = xy_after_[1] = 0.0;
  }

 private:
  bool is_healthy() const {
    for (int i = 0; i < m_->nq; ++i)
      if (!std::isfinite(d_->qpos[i])) return false;
    for (int i = 0; i < m_->nv; ++i)
      if (!std::isfinite(d_->qvel[i])) return false;
    const double z = d_->qpos[2];
    return p_.healthy_z_range.first <= z && z <= p_.healthy_z_range.second;
  }

  double contact_cost() const {
    const auto [lo, hi] = p_.contact_force_range;
    return p_.contact_cost_weight * np_sum_squares_clipped(d_->cfrc_ext, static_cast<size_t>(m_->nbody) * 6, lo, hi);
  }

  Params p_;
  int main_body_ = 1;
  double x_velocity_ = 0, y_velocity_ = 0, forward_reward_ = 0, healthy_reward_ = 0, reward_ctrl_ = 0,
         contact_cost_ = 0;
  double xy_after_[2] = {0, 0};
};

}  // namespace envhive::mujoco
