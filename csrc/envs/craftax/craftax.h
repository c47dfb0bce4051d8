// The Craftax family's register function (envhive._craftax).
#pragma once

#include "../../core/task.h"

namespace envhive::craftax {
// Registers the Craftax-Classic tasks. The pixel tasks draw with the craftax package's textures,
// read the first time one is made: from the family's resolver ("textures",
// envhive.families.craftax), or from the folder `textures_dir` (craftax_loop_bench). The symbolic
// task needs neither.
void register_tasks(TaskRegistry& registry, const FamilyData& data);
}  // namespace envhive::craftax
