#pragma once

#include <memory>

#include "../../core/task.h"
#include "textures.h"

namespace envhive::crafter {
// Registers CrafterReward-v1 and CrafterNoReward-v1, drawing with `textures` (crafter's assets).
void register_tasks(TaskRegistry& registry, std::shared_ptr<const TextureLoader> textures);
// The family's register function: the textures come from the family's resolver ("textures",
// envhive.families.crafter), whose "rules" are checked against the rules compiled in, or from the
// folder `textures_dir` (crafter_loop_bench).
void register_tasks(TaskRegistry& registry, const FamilyData& data);
}  // namespace envhive::crafter
