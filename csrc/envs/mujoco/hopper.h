// Hopper-v4 / Hopper-v5: gymnasium.envs.mujoco.hopper_v4 / hopper_v5.HopperEnv.
#pragma once

#include <limits>

#include "planar_walker.h"

namespace envhive::mujoco {

// A one-legged planar walker; unlike Walker2d it is also unhealthy once any of qpos[2:] and
// qvel leaves healthy_state_range.
inline constexpr PlanarWalkerTask kHopperTask{
    .body_name = "hopper",
    .xml_v4 = "hopper.xml",
    .xml_v5 = "hopper.xml",
    .healthy_z_range = {0.7, std::numeric_limits<double>::infinity()},
    .healthy_angle_range = {-0.2, 0.2},
    .healthy_state_range = std::pair<double, double>{-100.0, 100.0},
};

using HopperEnv = PlanarWalkerEnv<kHopperTask>;

}  // namespace envhive::mujoco
