// Gymnasium's Box2D tasks (LunarLander, BipedalWalker, CarRacing), reproduced step for step on
// Box2D built from pybox2d's own C++ sources (box2d.cmake), with renderers that draw Gymnasium's
// pygame frames pixel for pixel.
#pragma once

#include "../../core/task.h"

namespace envhive {

void register_box2d(TaskRegistry& registry);

}  // namespace envhive
