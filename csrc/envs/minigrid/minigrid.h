// minigrid's environments (the MiniGrid suite and the BabyAI levels) on envhive's pool, step for
// step equal to minigrid 3.2 from the same seed.
#pragma once

#include "../../core/task.h"

namespace envhive {
void register_minigrid(TaskRegistry& registry);  // the MiniGrid suite
void register_babyai(TaskRegistry& registry);    // the BabyAI levels
// Both: the family's register function (csrc/envs/minigrid/family.cmake).
void register_minigrid_families(TaskRegistry& registry);
}  // namespace envhive
