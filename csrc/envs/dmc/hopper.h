// dm_control's hopper domain (suite/hopper.py): stand, hop.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class HopperEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    return {{"position", {m.nq - 1}}, {"velocity", {m.nv}}, {"touch", {2}}};
  }

  HopperEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        hopping_(t.task == "hop"),
        torso_(body("torso")),
        foot_(body("foot")),
        subtreelinvel_(sensor_adr("torso_subtreelinvel")),
        touch_toe_(sensor_adr("touch_toe")),
        touch_heel_(sensor_adr("touch_heel")) {}

 protected:
  void initialize_episode() override { randomize_limited_and_rotational_joints(); }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos + 1, static_cast<size_t>(m_->nq - 1));  // position
    put_velocity(w);
    w.put(npk::element(npk::Ufunc::kLog1p, d_->sensordata[touch_toe_], 2));  // touch: np.log1p of 2 sensors
    w.put(npk::element(npk::Ufunc::kLog1p, d_->sensordata[touch_heel_], 2));
  }

  double reward() const override {
    const double height = d_->xipos[3 * torso_ + 2] - d_->xipos[3 * foot_ + 2];
    const double standing = tolerance(height, {.lower = 0.6, .upper = 2});
    if (hopping_) {
      const double hopping = tolerance(d_->sensordata[subtreelinvel_],
                                       {.lower = 2, .upper = kInf, .margin = 1, .sigmoid = Sigmoid::kLinear, .value_at_margin = 0.5});
      return standing * hopping;
    }
    return standing * ((small_control_mean() + 4) / 5);
  }

 private:
  bool hopping_;
  int torso_, foot_, subtreelinvel_, touch_toe_, touch_heel_;
};

}  // namespace envhive::dmc
