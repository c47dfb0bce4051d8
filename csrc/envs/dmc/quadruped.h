// dm_control's quadruped walk and run (suite/quadruped.py, the Move task): move forward at a
// desired speed while upright. The floor size comes from the XML dm_control builds for each.
#pragma once

#include "quadruped_body.h"

namespace envhive::dmc {

class QuadrupedMoveEnv final : public QuadrupedBody {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return common_observation(m); }

  QuadrupedMoveEnv(const Params& p, int env_id, const DmcTask& t)
      : QuadrupedBody(p, env_id), desired_speed_(t.task == "run" ? 5 : 0.5) {}

 protected:
  void initialize_episode() override {
    double orientation[4];
    random_orientation(orientation);
    find_non_contacting_height(orientation);
  }

  void observe(ObsWriter& w) const override { put_common(w); }

  double reward() const override {
    const double move = tolerance(torso_velocity()[0], {.lower = desired_speed_,
                                                        .upper = kInf,
                                                        .margin = desired_speed_,
                                                        .sigmoid = Sigmoid::kLinear,
                                                        .value_at_margin = 0.5});
    return upright_reward(1.0) * move;  // deviation_angle 0
  }

 private:
  double desired_speed_;
};

}  // namespace envhive::dmc
