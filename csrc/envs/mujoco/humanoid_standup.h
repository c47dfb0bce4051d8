// HumanoidStandup-v4 / HumanoidStandup-v5: gymnasium.envs.mujoco.humanoidstandup_v4 / _v5.
#pragma once

#include <limits>

#include "mujoco_env.h"

namespace envhive::mujoco {

class HumanoidStandupEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double uph_cost_weight = 1.0, ctrl_cost_weight = 0.1, impact_cost_weight = 0.5e-6;
    std::pair<double, double> impact_cost_range{-std::numeric_limits<double>::infinity(), 10.0};
    double reset_noise_scale = 1e-2;
    bool exclude_current_positions = true;
    bool include_cinert = true, include_cvel = true, include_qfrc_actuator = true, include_cfrc_ext = true;
  };

  static std::vector<ConfigField> config(bool v5) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<ConfigField> f;
    if (!v5) return f;
    f.push_back({"xml_file", std::string("humanoidstandup.xml"), "MuJoCo model: a file in Gymnasium's assets or a path."});
    f.push_back({"frame_skip", int64_t{5}, "MuJoCo steps per env step."});
    f.push_back({"uph_cost_weight", 1.0, "Accepted as in Gymnasium, which does not use it."});
    f.push_back({"ctrl_cost_weight", 0.1, "Weight of the control cost."});
    f.push_back({"impact_cost_weight", 0.5e-6, "Weight of the impact (contact) cost."});
    f.push_back({"impact_cost_range", std::vector<double>{-inf, 10.0}, "Clip range of the impact cost."});
    f.push_back({"reset_noise_scale", 1e-2, "Scale of the initial-state noise."});
    f.push_back({"exclude_current_positions_from_observation", true, "Omit the root x/y from the observation."});
    f.push_back({"include_cinert_in_observation", true, "Add cinert (without the world body)."});
    f.push_back({"include_cvel_in_observation", true, "Add cvel (without the world body)."});
    f.push_back({"include_qfrc_actuator_in_observation", true, "Add qfrc_actuator (without the free joint)."});
    f.push_back({"include_cfrc_ext_in_observation", true, "Add cfrc_ext (without the world body)."});
    return f;
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "humanoidstandup.xml", 5);
    if (!v5) return p;
    p.uph_cost_weight = c.real("uph_cost_weight");
    p.ctrl_cost_weight = c.real("ctrl_cost_weight");
    p.impact_cost_weight = c.real("impact_cost_weight");
    p.impact_cost_range = range_param(c, "impact_cost_range");
    p.reset_noise_scale = c.real("reset_noise_scale");
    p.exclude_current_positions = c.flag("exclude_current_positions_from_observation");
    p.include_cinert = c.flag("include_cinert_in_observation");
    p.include_cvel = c.flag("include_cvel_in_observation");
    p.include_qfrc_actuator = c.flag("include_qfrc_actuator_in_observation");
    p.include_cfrc_ext = c.flag("include_cfrc_ext_in_observation");
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
                 {"z_distance_from_origin", DType::kFloat64, {}},
                 {"tendon_length", DType::kFloat64, {m.ntendon}},
                 {"tendon_velocity", DType::kFloat64, {m.ntendon}},
                 {"reward_linup", DType::kFloat64, {}},
                 {"reward_quadctrl", DType::kFloat64, {}},
                 {"reward_impact", DType::kFloat64, {}}};
    else
      s.infos = {{"reward_linup", DType::kFloat64, {}},
                 {"reward_quadctrl", DType::kFloat64, {}},
                 {"reward_impact", DType::kFloat64, {}}};
    return s;
  }

  HumanoidStandupEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = true;
  }

  StepResult step(const void* action) override {
    do_simulation(static_cast<const float*>(action));
    const double pos_after = d_->qpos[2];
    uph_cost_ = (pos_after - 0) / m_->opt.timestep;
    quad_ctrl_cost_ = p_.ctrl_cost_weight * np_sum_squares(d_->ctrl, static_cast<size_t>(m_->nu));
    const double impact = p_.impact_cost_weight * np_sum_squares(d_->cfrc_ext, static_cast<size_t>(m_->nbody) * 6);
    // v4: min(cost, 10); v5: np.clip(cost, *impact_cost_range) (the same with the defaults).
    quad_impact_cost_ = p_.v5 ? np_clip(impact, p_.impact_cost_range.first, p_.impact_cost_range.second)
                              : (10.0 < impact ? 10.0 : impact);
    return {uph_cost_ - quad_ctrl_cost_ - quad_impact_cost_ + 1, false};
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
    size_t k = 0;
    if (p_.v5) {
      put_info(dst[k++], d_->qpos[0]);
      put_info(dst[k++], d_->qpos[1]);
      put_info(dst[k++], d_->qpos[2] - init_qpos_[2]);
      put_info(dst[k++], d_->ten_length, static_cast<size_t>(m_->ntendon));
      put_info(dst[k++], d_->ten_velocity, static_cast<size_t>(m_->ntendon));
    }
    put_info(dst[k++], uph_cost_);
    put_info(dst[k++], -quad_ctrl_cost_);
    put_info(dst[k++], -quad_impact_cost_);
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    uph_cost_ = quad_ctrl_cost_ = quad_impact_cost_ = 0.0;
  }

 private:
  Params p_;
  double uph_cost_ = 0, quad_ctrl_cost_ = 0, quad_impact_cost_ = 0;
};

}  // namespace envhive::mujoco
