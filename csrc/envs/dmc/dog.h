// dm_control's dog stand, walk, trot and run (suite/dog.py: the Stand task, and Move, which adds a
// forward-speed factor): a 3D dog of 38 muscle-like actuators. The floor size comes from the XML
// dm_control builds for each.
#pragma once

#include <algorithm>

#include "dog_body.h"

namespace envhive::dmc {

class DogEnv final : public DogBody {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return common_observation(m); }

  DogEnv(const Params& p, int env_id, const DmcTask& t)
      : DogBody(p, env_id),
        move_speed_(t.task == "walk" ? 1.0 : t.task == "trot" ? 3.0 : t.task == "run" ? 9.0 : 0.0) {}

 protected:
  void observe(ObsWriter& w) const override { put_common(w); }

  double reward() const override {
    const double standing = standing_product();
    if (move_speed_ == 0) return standing;  // Stand
    double velocity[3];
    torso_com_velocity(velocity);
    const double forward = tolerance(velocity[0], {.lower = move_speed_,
                                                   .upper = 2 * move_speed_,
                                                   .margin = std::max(1.0, move_speed_),
                                                   .sigmoid = Sigmoid::kLinear,
                                                   .value_at_margin = 0});
    return standing * ((4 * forward + 1) / 5);
  }

 private:
  double move_speed_;  // 0: Stand
};

}  // namespace envhive::dmc
