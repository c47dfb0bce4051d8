// dm_control's lqr domain (suite/lqr.py): lqr_2_1, lqr_6_2. dm_control draws each joint's stiffness
// (and damping, from an empty range) from the task's RandomState while it builds the model, before
// any episode: here every env has its own model copy whose joints get those draws from the env's
// own seed, whenever it is (re)seeded. No time limit: an episode ends when the state norm falls
// below 1e-6 (discount 0).
#pragma once

#include <string>

#include "dmc_env.h"

namespace envhive::dmc {

class LqrEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return {{"position", {m.nq}}, {"velocity", {m.nv}}}; }

  LqrEnv(const Params& p, int env_id, const DmcTask&) : DmcEnv(p, env_id) {
    for (int j = 0; j < m_->njnt; ++j) joints_.push_back(id(mjOBJ_JOINT, ("joint_" + std::to_string(j)).c_str()));
    own_model();
  }

  void seed(uint64_t s) override {
    DmcEnv::seed(s);
    draw_model();
  }
  void seed_from_os() override {
    DmcEnv::seed_from_os();
    draw_model();
  }

 protected:
  void initialize_episode() override {
    const int n = m_->nq;
    std::vector<double> unit(static_cast<size_t>(n));
    for (double& u : unit) u = random().standard_normal();
    const double norm = npk::norm(unit.data(), unit.size());
    for (int i = 0; i < n; ++i) d_->qpos[i] = std::sqrt(2.0) * unit[i] / norm;
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos, static_cast<size_t>(m_->nq));
    put_velocity(w);
  }

  double reward() const override {
    const double state_cost = 0.5 * npk::dot(d_->qpos, d_->qpos, static_cast<size_t>(m_->nq));
    const double control_l2_norm = 0.5 * npk::dot(d_->ctrl, d_->ctrl, static_cast<size_t>(m_->nu));
    return 1 - (state_cost + control_l2_norm * 0.1);
  }

  bool terminated() const override {
    // physics.state_norm(): the norm of (qpos, qvel, act)
    const size_t n = static_cast<size_t>(m_->nq + m_->nv + m_->na);
    std::vector<double> state(n);
    std::copy_n(d_->qpos, m_->nq, state.begin());
    std::copy_n(d_->qvel, m_->nv, state.begin() + m_->nq);
    std::copy_n(d_->act, m_->na, state.begin() + m_->nq + m_->nv);
    return npk::norm(state.data(), n) < 1e-6;
  }

 private:
  // _make_body's draws, body after body: stiffness ~ U(15, 25), damping ~ U(0, 0).
  void draw_model() {
    mjModel* m = own_model();
    for (const int j : joints_) {
      m->jnt_stiffness[j] = random().uniform(15, 25);
      m->dof_damping[m->jnt_dofadr[j]] = random().uniform(0, 0);
    }
  }

  std::vector<int> joints_;
};

}  // namespace envhive::dmc
