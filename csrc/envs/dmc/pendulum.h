// dm_control's pendulum domain (suite/pendulum.py): swingup.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class PendulumEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel&, const Params&) { return {{"orientation", {2}}, {"velocity", {1}}}; }

  PendulumEnv(const Params& p, int env_id, const DmcTask&)
      : DmcEnv(p, env_id), pole_(body("pole")), hinge_(joint_qpos("hinge")), hinge_dof_(joint_dof("hinge")) {}

 protected:
  void initialize_episode() override { d_->qpos[hinge_] = random().uniform(-npcompat::kPi, npcompat::kPi); }

  void observe(ObsWriter& w) const override {
    w.put(xmat(pole_, 2, 2));  // orientation: (zz, xz)
    w.put(xmat(pole_, 0, 2));
    w.put(d_->qvel[hinge_dof_]);  // velocity
  }

  double reward() const override {
    // _COSINE_BOUND = np.cos(np.deg2rad(8)); deg2rad multiplies by pi / 180.
    static const double cosine_bound = npk::scalar(npk::Ufunc::kCos, 8 * (npcompat::kPi / 180.0));
    return tolerance(xmat(pole_, 2, 2), {.lower = cosine_bound, .upper = 1});
  }

 private:
  int pole_, hinge_, hinge_dof_;
};

}  // namespace envhive::dmc
