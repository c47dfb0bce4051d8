// HumanoidStandup-v4 / HumanoidStandup-v5: gymnasium.envs.mujoco.humanoidstandup_v4 / _v5.
#pragma once

#include <limits>

#include "humanoid_body.h"

namespace envhive::mujoco {

class HumanoidStandupEnv final : public HumanoidBodyEnv {
 public:
  struct Params : HumanoidBodyParams {
    double uph_cost_weight = 1.0, impact_cost_weight = 0.5e-6;
    std::pair<double, double> impact_cost_range{-std::numeric_limits<double>::infinity(), 10.0};
  };

  static std::vector<ConfigField> config(bool v5) {
    if (!v5) return {};
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<ConfigField> f = model_fields(v5, "humanoidstandup.xml", 5);
    f.push_back({"uph_cost_weight", 1.0, "Accepted as in Gymnasium, which does not use it."});
    f.push_back(ctrl_cost_weight_field());
    f.push_back({"impact_cost_weight", 0.5e-6, "Weight of the impact (contact) cost."});
    f.push_back({"impact_cost_range", std::vector<double>{-inf, 10.0}, "Clip range of the impact cost."});
    add_body_fields(f, v5);
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "humanoidstandup.xml", 5);
    if (!v5) return p;
    read_body_params(c, v5, p);
    p.uph_cost_weight = c.real("uph_cost_weight");
    p.impact_cost_weight = c.real("impact_cost_weight");
    p.impact_cost_range = range_param(c, "impact_cost_range");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    Spaces s = body_spaces(m, p);
    if (p.v5)
      s.infos = float64_infos({"x_position", "y_position", "z_distance_from_origin", {"tendon_length", m.ntendon},
                               {"tendon_velocity", m.ntendon}, "reward_linup", "reward_quadctrl", "reward_impact"});
    else
      s.infos = float64_infos({"reward_linup", "reward_quadctrl", "reward_impact"});
    return s;
  }

  HumanoidStandupEnv(ModelPtr model, const Params& p) : HumanoidBodyEnv(std::move(model), p), p_(p) {}

  StepResult step(const void* action) override {
    do_simulation(static_cast<const float*>(action));
    const double pos_after = d_->qpos[2];
    uph_cost_ = (pos_after - 0) / m_->opt.timestep;
    quad_ctrl_cost_ = control_cost();
    const double impact = cfrc_ext_cost(p_.impact_cost_weight);
    // v4: min(cost, 10); v5: np.clip(cost, *impact_cost_range) (the same with the defaults).
    quad_impact_cost_ = p_.v5 ? np_clip(impact, p_.impact_cost_range.first, p_.impact_cost_range.second)
                              : (10.0 < impact ? 10.0 : impact);
    return {uph_cost_ - quad_ctrl_cost_ - quad_impact_cost_ + 1, false};
  }

  void write_info(void* const* dst) const override {
    size_t k = 0;
    if (p_.v5) {
      put_info(dst[k++], d_->qpos[0]);
      put_info(dst[k++], d_->qpos[1]);
      put_info(dst[k++], d_->qpos[2] - init_qpos_[2]);
      put_info(dst[k++], d_->ten_length, static_cast<size_t>(m_->ntendon));
      put_info(dst[k++], d_->ten_velocity, static_cast<size_t>(m_->ntendon));
    }
    put_infos(dst + k, {uph_cost_, -quad_ctrl_cost_, -quad_impact_cost_});
  }

 protected:
  void reset_model() override {
    HumanoidBodyEnv::reset_model();
    uph_cost_ = quad_ctrl_cost_ = quad_impact_cost_ = 0.0;
  }

 private:
  Params p_;
  double uph_cost_ = 0, quad_ctrl_cost_ = 0, quad_impact_cost_ = 0;
};

}  // namespace envhive::mujoco
