// Gymnasium's classic-control tasks (CartPole, Pendulum, MountainCar, MountainCarContinuous,
// Acrobot), reproduced step for step in C++, with renderers that draw Gymnasium's frames pixel for
// pixel (render/: a rasterizer with pygame's integer rules, and each env's scene).
#pragma once

#include "../../core/task.h"

namespace envhive {

// `assets_dir`: Gymnasium's envs/classic_control/assets folder (Pendulum's renderer draws its
// clockwise.png), or "" when it cannot be found (then only rendering Pendulum fails, saying so).
// Gymnasium's classic-control tasks; `images_dir` (DATA: Gymnasium's classic-control assets) holds what
// their frames draw.
void register_classic_control(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
