// InvertedDoublePendulum-v4 / -v5: gymnasium.envs.mujoco.inverted_double_pendulum_v4 / _v5.
#pragma once

#include <cmath>

#include "mujoco_env.h"

namespace envhive::mujoco {

class InvertedDoublePendulumEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double healthy_reward = 10.0, reset_noise_scale = 0.1;
  };

  static std::vector<ConfigField> config(bool v5) {
    if (!v5) return {};
    return {xml_file_field("inverted_double_pendulum.xml"),
            frame_skip_field(5),
            {"healthy_reward", 10.0, "Reward per step while the tip is above y = 1."},
            {"reset_noise_scale", 0.1, "Scale of the initial-state noise."}};
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "inverted_double_pendulum.xml", 5);
    if (v5) {
      p.healthy_reward = c.real("healthy_reward");
      p.reset_noise_scale = c.real("reset_noise_scale");
    }
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    if (m.nq < 1 || m.nv < 3 || m.nsite < 1)
      throw std::invalid_argument("InvertedDoublePendulum needs a model with nq >= 1, nv >= 3 and a site");
    // cart x, sin and cos of the link angles, qvel, qfrc_constraint ([:1] in v5).
    const int64_t n = 1 + 2 * (m.nq - 1) + m.nv + (p.v5 ? 1 : m.nv);
    Spaces s = mujoco_spaces(m, n);
    if (p.v5) s.infos = float64_infos({"reward_survive", "distance_penalty", "velocity_penalty"});
    return s;
  }

  InvertedDoublePendulumEnv(ModelPtr model, const Params& p)
      : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;  // qfrc_constraint is computed by mj_step itself
  }

  StepResult step(const void* action) override {
    do_simulation(static_cast<const float*>(action));
    const double x = d_->site_xpos[0], y = d_->site_xpos[2];
    const bool terminated = y <= 1;
    const double v1 = d_->qvel[1], v2 = d_->qvel[2];
    // `x ** 2` of np.float64 scalars: glibc's pow, not a product (py_pow)
    const double dist_penalty = 0.01 * npcompat::py_pow(x, 2) + npcompat::py_pow(y - 2, 2);
    const double vel_penalty = 1e-3 * npcompat::py_pow(v1, 2) + 5e-3 * npcompat::py_pow(v2, 2);
    alive_bonus_ = p_.v5 ? p_.healthy_reward * (terminated ? 0.0 : 1.0) : 10.0;
    dist_penalty_ = dist_penalty;
    vel_penalty_ = vel_penalty;
    return {alive_bonus_ - dist_penalty - vel_penalty, terminated};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    w.put(d_->qpos[0]);
    const size_t links = static_cast<size_t>(m_->nq - 1);  // np.sin / np.cos of qpos[1:]
    for (int i = 1; i < m_->nq; ++i) w.put(npk::element(npk::Ufunc::kSin, d_->qpos[i], links));
    for (int i = 1; i < m_->nq; ++i) w.put(npk::element(npk::Ufunc::kCos, d_->qpos[i], links));
    w.put_clipped(d_->qvel, static_cast<size_t>(m_->nv), -10.0, 10.0);
    w.put_clipped(d_->qfrc_constraint, p_.v5 ? 1 : static_cast<size_t>(m_->nv), -10.0, 10.0);
  }

  void write_info(void* const* dst) const override {
    if (p_.v5) put_infos(dst, {alive_bonus_, -dist_penalty_, -vel_penalty_});
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/true);
    alive_bonus_ = dist_penalty_ = vel_penalty_ = 0.0;
  }

 private:
  Params p_;
  double alive_bonus_ = 0, dist_penalty_ = 0, vel_penalty_ = 0;
};

}  // namespace envhive::mujoco
