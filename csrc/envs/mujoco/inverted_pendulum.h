// InvertedPendulum-v4 / InvertedPendulum-v5: gymnasium.envs.mujoco.inverted_pendulum_v4 / _v5.
#pragma once

#include <cmath>

#include "mujoco_env.h"

namespace envhive::mujoco {

class InvertedPendulumEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double reset_noise_scale = 0.01;
  };

  static std::vector<ConfigField> config(bool v5) {
    if (!v5) return {};
    return {xml_file_field("inverted_pendulum.xml"),
            frame_skip_field(2),
            {"reset_noise_scale", 0.01, "Scale of the initial-state noise."}};
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "inverted_pendulum.xml", 2);
    if (v5) p.reset_noise_scale = c.real("reset_noise_scale");
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    if (m.nq < 2) throw std::invalid_argument("InvertedPendulum needs a model with nq >= 2");
    Spaces s = mujoco_spaces(m, m.nq + m.nv);
    if (p.v5) s.infos = float64_infos({"reward_survive"});
    return s;
  }

  InvertedPendulumEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    post_constraint_ = false;
  }

  StepResult step(const void* action) override {
    do_simulation(static_cast<const float*>(action));
    bool finite = true;
    for (int i = 0; i < m_->nq; ++i) finite = finite && std::isfinite(d_->qpos[i]);
    for (int i = 0; i < m_->nv; ++i) finite = finite && std::isfinite(d_->qvel[i]);
    const bool terminated = !finite || std::fabs(d_->qpos[1]) > 0.2;
    reward_ = p_.v5 ? (terminated ? 0.0 : 1.0) : 1.0;
    return {reward_, terminated};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    put_qpos_qvel(w, 0);
  }

  void write_info(void* const* dst) const override {
    if (p_.v5) put_info(dst[0], reward_);
  }

 protected:
  void reset_model() override {
    reset_with_noise(p_.reset_noise_scale, /*normal_qvel=*/false);
    reward_ = 0.0;
  }

 private:
  Params p_;
  double reward_ = 0;
};

}  // namespace envhive::mujoco
