// dm_control's acrobot domain (suite/acrobot.py): swingup, swingup_sparse.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class AcrobotEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return {{"orientations", {4}}, {"velocity", {m.nv}}}; }

  AcrobotEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        sparse_(t.task == "swingup_sparse"),
        upper_arm_(body("upper_arm")),
        lower_arm_(body("lower_arm")),
        shoulder_(joint_qpos("shoulder")),
        elbow_(joint_qpos("elbow")),
        target_(id(mjOBJ_SITE, "target")),
        tip_(id(mjOBJ_SITE, "tip")) {}

 protected:
  void initialize_episode() override {
    d_->qpos[shoulder_] = random().uniform(-npcompat::kPi, npcompat::kPi);
    d_->qpos[elbow_] = random().uniform(-npcompat::kPi, npcompat::kPi);
  }

  void observe(ObsWriter& w) const override {
    w.put(xmat(upper_arm_, 0, 2));  // orientations: horizontal (xz), then vertical (zz)
    w.put(xmat(lower_arm_, 0, 2));
    w.put(xmat(upper_arm_, 2, 2));
    w.put(xmat(lower_arm_, 2, 2));
    put_velocity(w);
  }

  double reward() const override {
    double tip_to_target[3];
    for (int k = 0; k < 3; ++k) tip_to_target[k] = d_->site_xpos[3 * target_ + k] - d_->site_xpos[3 * tip_ + k];
    const double target_radius = m_->site_size[3 * target_];
    return tolerance(npk::norm(tip_to_target, 3), {.lower = 0, .upper = target_radius, .margin = sparse_ ? 0.0 : 1.0});
  }

 private:
  bool sparse_;
  int upper_arm_, lower_arm_, shoulder_, elbow_, target_, tip_;
};

}  // namespace envhive::dmc
