// Gymnasium's classic-control tasks (CartPole, Pendulum, MountainCar, MountainCarContinuous,
// Acrobot), reproduced step for step in C++.
#pragma once

#include <vector>

#include "../../core/env.h"

namespace envhive {

// Append one TaskDef per classic-control task id to `registry`.
void register_classic_control(std::vector<TaskDef>& registry);

}  // namespace envhive
