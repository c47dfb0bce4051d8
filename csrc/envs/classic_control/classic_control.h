// Gymnasium's classic-control tasks (CartPole, Pendulum, MountainCar, MountainCarContinuous,
// Acrobot), reproduced step for step in C++, with renderers that draw Gymnasium's frames pixel for
// pixel (render/: a rasterizer with pygame's integer rules, and each env's scene).
#pragma once

#include "../../core/task.h"

namespace envhive {

// `assets_dir`: Gymnasium's envs/classic_control/assets folder (Pendulum's renderer draws its
// clockwise.png), or "" when it cannot be found (then only rendering Pendulum fails, saying so).
void register_classic_control(TaskRegistry& registry, const std::string& assets_dir);

}  // namespace envhive
