// Humanoid-v4 / Humanoid-v5: gymnasium.envs.mujoco.humanoid_v4 / humanoid_v5.HumanoidEnv.
#pragma once

#include <limits>

#include "mujoco_env.h"

namespace envhive::mujoco {

class HumanoidEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double forward_reward_weight = 1.25, ctrl_cost_weight = 0.1, contact_cost_weight = 5e-7;
    std::pair<double, double> contact_cost_range{-std::numeric_limits<double>::infinity(), 10.0};
    double healthy_reward = 5.0;
    bool terminate_when_unhealthy = true;
    std::pair<double, double> healthy_z_range{1.0, 2.0};
    double reset_noise_scale = 1e-2;
    bool exclude_current_positions = true;
    bool include_cinert = true, include_cvel = true, include_qfrc_actuator = true, include_cfrc_ext = true;
  };

  static std::vector<ConfigField> config(bool v5) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<ConfigField> f;
    if (v5) {
      f.push_back({"xml_file", std::string("humanoid.xml"), "MuJoCo model: a file in Gymnasium's assets or a path."});
      f.push_back({"frame_skip", int64_t{5}, "MuJoCo steps per env step."});
    }
    f.push_back({"forward_reward_weight", 1.25, "Weight of the forward reward."});
    f.push_back({"ctrl_cost_weight", 0.1, "Weight of the control cost."});
    if (v5) {
      f.push_back({"contact_cost_weight", 5e-7, "Weight of the contact cost."});
      f.push_back({"contact_cost_range", std::vector<double>{-inf, 10.0}, "Clip range of the contact cost."});
    }
    f.push_back({"healthy_reward", 5.0, "Reward per step while healthy."});
    f.push_back({"terminate_when_unhealthy", true, "Terminate when the torso leaves healthy_z_range."});
    f.push_back({"healthy_z_range", std::vector<double>{1.0, 2.0}, "Healthy torso heights (exclusive)."});
    f.push_back({"reset_noise_scale", 1e-2, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x/y from the observation."});
    if (v5) {
      f.push_back({"include_cinert_in_observation", true, "Add cinert (without the world body)."});
      f.push_back({"include_cvel_in_observation", true, "Add cvel (without the world body)."});
      f.push_back({"include_qfrc_actuator_in_observation", true, "Add qfrc_actuator (without the free joint)."});
      f.push_back({"include_cfrc_ext_in_observation", true, "Add cfrc_ext (without the world body)."});
    }
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "humanoid.xml", 5);
    p.forward_reward_weight = c.real("forward_reward_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    if (v5) {
      p.contact_cost_weight = c.real("contact_cost_weight");
      p.contact_cost_range = range_param(c, "contact_cost_range");
      p.include_cinert = c.flag("include_cinert_in_observation");
      p.include_cvel = c.flag("include_cvel_in_observation");
      p.include_qfrc_actuator = c.flag("include_qfrc_actuator_in_observation");
      p.include_cfrc_ext = c.flag("include_cfrc_ext_in_observation");
    }
    p.healthy_reward = c.real("healthy_reward");
    p.terminate_when_unhealthy = c.flag("terminate_when_unhealthy");
    p.healthy_z_range = range_param(c, "healthy_z_range");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    return p;
  }

  static int64_t obs_size(const mjModel& m, const Params& p) {
    int64_t n = m.nq + m.nv - (p.exclude_current_positions ? 2 : 0);
    const int64_t bodies = p.v5 ? m.nbody - 1 : m.nbody;
    if (p.include_cinert) n += bodies * 10;
    if (p.include_cvel) n += bodies * 6;
    if (p.include_qfrc_actuator) n += p.v5 ? m.nv - 6 : m.nv;
    if (p.include_cfrc_ext) n += bodies * 6;
    return n;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    if (p.v5 && p.include_qfrc_actuator && m.nv < 6)
      throw std::invalid_argument("include_qfrc_actuator_in_observation needs a model with a free joint (nv >= 6)");
    Spaces s = mujoco_spaces(m, obs_size(m, p));
    if (p.v5)
      s.infos = {{"x_position", DType::kFloat64, {}},
                 {"y_position", DType::kFloat64, {}},
                 {"tendon_length", DType::kFloat64, {m.ntendon}},
                 {"tendon_velocity", DType::kFloat64, {m.ntendon}},
                 {"distance_from_origin", DType::kFloat64, {}},
                 {"x_velocity", DType::kFloat64, {}},
                 {"y_velocity", DType::kFloat64, {}},
                 {"reward_survive", DType::kFloat64, {}},
                 {"reward_forward", DType::kFloat64, {}},
                 {"reward_ctrl", DType::kFloat64, {}},
                 {"reward_contact", DType::kFloat64, {}}};
    else
      s.infos = {{"reward_linvel", DType::kFloat64, {}},        {"reward_quadctrl", DType::kFloat64, {}},
                 {"reward_alive", DType::kFloat64, {}},         {"x_position", DType::kFloat64, {}},
                 {"y_position", DType::kFloat64, {}},           {"distance_from_origin", DType::kFloat64, {}},
                 {"x_velocity", DType::kFloat64, {}},           {"y_velocity", DType::kFloat64, {}},
                 {"forward_reward", DType::kFloat64, {}}};
    return s;
  }

  HumanoidEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = true;  // cfrc_ext: contact cost and observation
  }

  StepResult step(const void* action) override {
    double before[2], after[2];
    mass_center(before);
    do_simulation(static_cast<const float*>(action));
    mass_center(after);
    x_velocity_ = (after[0] - before[0]) / dt_;
    y_velocity_ = (after[1] - before[1]) / dt_;
    // Humanoid's control cost reads data.ctrl (float64), not the float32 action.
    const double ctrl_cost = p_.ctrl_cost_weight * np_sum_squares(d_->ctrl, static_cast<size_t>(m_->nu));
    forward_reward_ = p_.forward_reward_weight * x_velocity_;
    const bool healthy = p_.healthy_z_range.first < d_->qpos[2] && d_->qpos[2] < p_.healthy_z_range.second;
    StepResult r;
    if (p_.v5) {
      healthy_reward_ = healthy ? p_.healthy_reward : 0.0;
      const double rewards = forward_reward_ + healthy_reward_;
      double contact = p_.contact_cost_weight * np_sum_squares(d_->cfrc_ext, static_cast<size_t>(m_->nbody) * 6);
      contact = np_clip(contact, p_.contact_cost_range.first, p_.contact_cost_range.second);
      contact_cost_ = contact;
      r.reward = rewards - (ctrl_cost + contact);
    } else {
      healthy_reward_ = static_cast<double>(healthy || p_.terminate_when_unhealthy) * p_.healthy_reward;
      const double rewards = forward_reward_ + healthy_reward_;
      r.reward = rewards - ctrl_cost;
      mc_after_[0] = after[0];
      mc_after_[1] = after[1];
    }
    ctrl_cost_ = ctrl_cost;
    r.terminated = !healthy && p_.terminate_when_unhealthy;
    return r;
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    const size_t skip = p_.exclude_current_positions ? 2 : 0;
    w.put(d_->qpos + skip, static_cast<size_t>(m_->nq) - skip);
    w.put(d_->qvel, static_cast<size_t>(m_->nv));
    const size_t b0 = p_.v5 ? 1 : 0, nb = static_cast<size_t>(m_->nbody) - b0;
    if (p_.include_cinert) w.put(d_->cinert + 10 * b0, 10 * nb);
    if (p_.include_cvel) w.put(d_->cvel + 6 * b0, 6 * nb);
    if (p_.include_qfrc_actuator) {
      const size_t q0 = p_.v5 ? 6 : 0;
      w.put(d_->qfrc_actuator + q0, static_cast<size_t>(m_->nv) - q0);
    }
    if (p_.include_cfrc_ext) w.put(d_->cfrc_ext + 6 * b0, 6 * nb);
  }

  void write_info(void* const* dst) const override {
    if (p_.v5) {
      const double* q = d_->qpos;
      put_info(dst[0], q[0]);
      put_info(dst[1], q[1]);
      put_info(dst[2], d_->ten_length, static_cast<size_t>(m_->ntendon));
      put_info(dst[3], d_->ten_velocity, static_cast<size_t>(m_->ntendon));
      put_info(dst[4], np_norm(q, 2));
      put_info(dst[5], x_velocity_);
      put_info(dst[6], y_velocity_);
      put_info(dst[7], healthy_reward_);
      put_info(dst[8], forward_reward_);
      put_info(dst[9], -ctrl_cost_);
      put_info(dst[10], -contact_cost_);
    } else {
      put_info(dst[0], forward_reward_);
      put_info(dst[1], -ctrl_cost_);
      put_info(dst[2], healthy_reward_);
      put_info(dst[3], mc_after_[0]);
      put_info(dst[4], mc_after_[1]);
      put_info(dst[5], np_norm(mc_after_, 2));
      put_info(dst[6], x_velocity_);
      put_info(dst[7], y_velocity_);
      put_info(dst[8], forward_reward_);
    }
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    x_velocity_ = y_velocity_ = forward_reward_ = healthy_reward_ = ctrl_cost_ = contact_cost_ = 0.0;
    mc_after_[0] = mc_after_[1] = 0.0;
  }

 private:
  // Gymnasium's mass_center: np.einsum("b,bj->j", body_mass, xipos) / body_mass.sum(), x and y.
  void mass_center(double out[2]) const {
    const size_t nb = static_cast<size_t>(m_->nbody);
    const double* mass = m_->body_mass;
    const double denom = np_sum<double>(nb, [mass](size_t i) { return mass[i]; });
    for (int j = 0; j < 2; ++j) {
      double num = 0.0;
      for (size_t b = 0; b < nb; ++b) num += mass[b] * d_->xipos[3 * b + static_cast<size_t>(j)];
      out[j] = num / denom;
    }
  }

  Params p_;
  double x_velocity_ = 0, y_velocity_ = 0, forward_reward_ = 0, healthy_reward_ = 0, ctrl_cost_ = 0,
         contact_cost_ = 0;
  double mc_after_[2] = {0, 0};
};

}  // namespace envhive::mujoco
