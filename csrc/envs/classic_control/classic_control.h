// Gymnasium's classic-control tasks (CartPole, Pendulum, MountainCar, MountainCarContinuous,
// Acrobot), reproduced step for step in C++.
#pragma once

#include "../../core/task.h"

namespace envhive {

void register_classic_control(TaskRegistry& registry);

}  // namespace envhive
