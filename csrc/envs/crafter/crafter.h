#pragma once

#include <memory>

#include "../../core/task.h"
#include "textures.h"

namespace envhive::crafter {
// Registers CrafterReward-v1 and CrafterNoReward-v1, drawing with `textures` (crafter's assets).
void register_tasks(TaskRegistry& registry, std::shared_ptr<const TextureSet> textures);
}  // namespace envhive::crafter
