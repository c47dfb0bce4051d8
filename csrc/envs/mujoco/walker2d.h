// Walker2d-v4 / Walker2d-v5: gymnasium.envs.mujoco.walker2d_v4 / walker2d_v5.Walker2dEnv.
#pragma once

#include "planar_walker.h"

namespace envhive::mujoco {

// A two-legged planar walker, healthy on torso height and angle alone. v5's default model
// (walker2d_v5.xml) gives both feet the same friction; v4 keeps walker2d.xml.
inline constexpr PlanarWalkerTask kWalker2dTask{
    .body_name = "walker",
    .xml_v4 = "walker2d.xml",
    .xml_v5 = "walker2d_v5.xml",
    .healthy_z_range = {0.8, 2.0},
    .healthy_angle_range = {-1.0, 1.0},
    .healthy_state_range = std::nullopt,
};

using Walker2dEnv = PlanarWalkerEnv<kWalker2dTask>;

}  // namespace envhive::mujoco
