// dm_control's walker domain (suite/walker.py): stand, walk, run.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class WalkerEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    return {{"orientations", {2 * (m.nbody - 1)}}, {"height", {}}, {"velocity", {m.nv}}};
  }

  WalkerEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        move_speed_(t.task == "stand" ? 0.0 : t.task == "walk" ? 1.0 : 8.0),
        torso_(body("torso")),
        subtreelinvel_(sensor_adr("torso_subtreelinvel")) {}

 protected:
  void initialize_episode() override { randomize_limited_and_rotational_joints(); }

  void observe(ObsWriter& w) const override {
    for (int b = 1; b < m_->nbody; ++b) {  // orientations: each body's (xx, xz)
      w.put(xmat(b, 0, 0));
      w.put(xmat(b, 0, 2));
    }
    w.put(torso_height());
    put_velocity(w);
  }

  double reward() const override {
    constexpr double kStandHeight = 1.2;
    const double standing = tolerance(torso_height(), {.lower = kStandHeight, .upper = kInf, .margin = kStandHeight / 2});
    const double upright = (1 + xmat(torso_, 2, 2)) / 2;
    const double stand_reward = (3 * standing + upright) / 4;
    if (move_speed_ == 0) return stand_reward;
    const double move_reward = tolerance(d_->sensordata[subtreelinvel_],  // horizontal velocity
                                         {.lower = move_speed_,
                                          .upper = kInf,
                                          .margin = move_speed_ / 2,
                                          .sigmoid = Sigmoid::kLinear,
                                          .value_at_margin = 0.5});
    return stand_reward * (5 * move_reward + 1) / 6;
  }

 private:
  double torso_height() const { return d_->xpos[3 * torso_ + 2]; }

  double move_speed_;
  int torso_, subtreelinvel_;
};

}  // namespace envhive::dmc
