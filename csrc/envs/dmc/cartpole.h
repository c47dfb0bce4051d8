// dm_control's cartpole domain (suite/cartpole.py): balance, balance_sparse, swingup,
// swingup_sparse, two_poles, three_poles (with the suite's num_poles and sparse). Poles beyond the
// first come from the XML dm_control builds for the task.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class CartpoleEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    return {{"position", {1 + 2 * (m.nbody - 2)}}, {"velocity", {m.nv}}};
  }

  CartpoleEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        swing_up_(!t.task.starts_with("balance")),
        sparse_(t.task.ends_with("_sparse") || p.sparse),
        slider_(joint_qpos("slider")),
        hinge_1_(joint_qpos("hinge_1")) {}

 protected:
  void initialize_episode() override {
    const int nv = m_->nv;
    if (swing_up_) {
      d_->qpos[slider_] = .01 * random().standard_normal();
      d_->qpos[hinge_1_] = npcompat::kPi + .01 * random().standard_normal();
      for (int i = 2; i < nv; ++i) d_->qpos[i] = .1 * random().standard_normal();
    } else {
      d_->qpos[slider_] = random().uniform(-.1, .1);
      for (int i = 1; i < nv; ++i) d_->qpos[i] = random().uniform(-.034, .034);
    }
    for (int i = 0; i < nv; ++i) d_->qvel[i] = 0.01 * random().standard_normal();
  }

  void observe(ObsWriter& w) const override {
    w.put(cart_position());  // position: cart, then each pole's (zz, xz)
    for (int b = 2; b < m_->nbody; ++b) {
      w.put(xmat(b, 2, 2));
      w.put(xmat(b, 0, 2));
    }
    put_velocity(w);
  }

  double reward() const override {
    const int poles = m_->nbody - 2;
    if (sparse_) {
      const double cart_in_bounds = tolerance(cart_position(), {.lower = -.25, .upper = .25});
      double angle_in_bounds = 1.0;
      for (int b = 2; b < m_->nbody; ++b)  // pole_angle_cosine(): xmat[2:, 'zz']
        angle_in_bounds *= tolerance(xmat(b, 2, 2), {.lower = .995, .upper = 1}, Arg::array(poles));
      return cart_in_bounds * angle_in_bounds;
    }
    double upright_sum = 0.0;
    for (int b = 2; b < m_->nbody; ++b) upright_sum += (xmat(b, 2, 2) + 1) / 2;
    const double upright = upright_sum / poles;
    const double centered = (1 + tolerance(cart_position(), {.margin = 2})) / 2;
    const double small_control =
        (4 + tolerance(d_->ctrl[0], {.margin = 1, .sigmoid = Sigmoid::kQuadratic, .value_at_margin = 0}, Arg::array(1))) / 5;
    double min_velocity = kInf;
    const Arg angular_vel = Arg::array(static_cast<size_t>(m_->nv - 1));  // qvel[1:]
    for (int i = 1; i < m_->nv; ++i) min_velocity = std::min(min_velocity, tolerance(d_->qvel[i], {.margin = 5}, angular_vel));
    const double small_velocity = (1 + min_velocity) / 2;
    return upright * small_control * small_velocity * centered;
  }

 private:
  double cart_position() const { return d_->qpos[slider_]; }

  bool swing_up_, sparse_;
  int slider_, hinge_1_;
};

}  // namespace envhive::dmc
