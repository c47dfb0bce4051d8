// Humanoid-v4 / Humanoid-v5: gymnasium.envs.mujoco.humanoid_v4 / humanoid_v5.HumanoidEnv.
#pragma once

#include <limits>

#include "humanoid_body.h"

namespace envhive::mujoco {

class HumanoidEnv final : public HumanoidBodyEnv {
 public:
  struct Params : HumanoidBodyParams {
    double forward_reward_weight = 1.25, contact_cost_weight = 5e-7;
    std::pair<double, double> contact_cost_range{-std::numeric_limits<double>::infinity(), 10.0};
    double healthy_reward = 5.0;
    bool terminate_when_unhealthy = true;
    std::pair<double, double> healthy_z_range{1.0, 2.0};
  };

  static std::vector<ConfigField> config(bool v5) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<ConfigField> f = model_fields(v5, "humanoid.xml", 5);
    f.push_back({"forward_reward_weight", 1.25, "Weight of the forward reward."});
    f.push_back(ctrl_cost_weight_field());
    if (v5) {
      f.push_back({"contact_cost_weight", 5e-7, "Weight of the contact cost."});
      f.push_back({"contact_cost_range", std::vector<double>{-inf, 10.0}, "Clip range of the contact cost."});
    }
    f.push_back({"healthy_reward", 5.0, "Reward per step while healthy."});
    f.push_back({"terminate_when_unhealthy", true, "Terminate when the torso leaves healthy_z_range."});
    f.push_back({"healthy_z_range", std::vector<double>{1.0, 2.0}, "Healthy torso heights (exclusive)."});
    add_body_fields(f, v5);
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "humanoid.xml", 5);
    read_body_params(c, v5, p);
    p.forward_reward_weight = c.real("forward_reward_weight");
    if (v5) {
      p.contact_cost_weight = c.real("contact_cost_weight");
      p.contact_cost_range = range_param(c, "contact_cost_range");
    }
    p.healthy_reward = c.real("healthy_reward");
    p.terminate_when_unhealthy = c.flag("terminate_when_unhealthy");
    p.healthy_z_range = range_param(c, "healthy_z_range");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = body_spaces(m, p);
    if (p.v5)
      s.infos = float64_infos({"x_position", "y_position", {"tendon_length", m.ntendon}, {"tendon_velocity", m.ntendon},
                               "distance_from_origin", "x_velocity", "y_velocity", "reward_survive", "reward_forward",
                               "reward_ctrl", "reward_contact"});
    else
      s.infos = float64_infos({"reward_linvel", "reward_quadctrl", "reward_alive", "x_position", "y_position",
                              "distance_from_origin", "x_velocity", "y_velocity", "forward_reward"});
    return s;
  }

  HumanoidEnv(ModelPtr model, const Params& p) : HumanoidBodyEnv(std::move(model), p), p_(p) {}

  StepResult step(const void* action) override {
    double before[2], after[2];
    mass_center(before);
    do_simulation(static_cast<const float*>(action));
    mass_center(after);
    x_velocity_ = (after[0] - before[0]) / dt_;
    y_velocity_ = (after[1] - before[1]) / dt_;
    const double ctrl_cost = control_cost();
    forward_reward_ = p_.forward_reward_weight * x_velocity_;
    const bool healthy = p_.healthy_z_range.first < d_->qpos[2] && d_->qpos[2] < p_.healthy_z_range.second;
    StepResult r;
    if (p_.v5) {
      healthy_reward_ = healthy ? p_.healthy_reward : 0.0;
      const double rewards = forward_reward_ + healthy_reward_;
      double contact = cfrc_ext_cost(p_.contact_cost_weight);
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

  void write_info(void* const* dst) const override {
    if (p_.v5) {
      const double* q = d_->qpos;
      put_info(dst[0], q[0]);
      put_info(dst[1], q[1]);
      put_info(dst[2], d_->ten_length, static_cast<size_t>(m_->ntendon));
      put_info(dst[3], d_->ten_velocity, static_cast<size_t>(m_->ntendon));
      put_infos(dst + 4, {np_norm(q, 2), x_velocity_, y_velocity_, healthy_reward_, forward_reward_, -ctrl_cost_,
                          -contact_cost_});
    } else {
      put_infos(dst, {forward_reward_, -ctrl_cost_, healthy_reward_, mc_after_[0], mc_after_[1],
                      np_norm(mc_after_, 2), x_velocity_, y_velocity_, forward_reward_});
    }
  }

 protected:
  void reset_model() override {
    HumanoidBodyEnv::reset_model();
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
