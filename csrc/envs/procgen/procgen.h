// Procgen's 16 games on envhive's pool, driven through the official procgen 0.10.7 engine
// (engine_library.h): every frame, reward, done and info is the engine's own.
#pragma once

#include "../../core/family_data.h"
#include "../../core/task.h"

namespace envhive::procgen {

// Every id: upstream gym's `procgen-<game>-v0` (distribution_mode a kwarg, default 'hard') and
// EnvPool's `<Game><Mode>-v0` (its mode the default). Where the engine lies: `engine_dir` when the
// data has it (the loop bench), else the family's resolver (key "engine", this build's cache folder
// after a newline: envhive.families.procgen.resolve), asked when the first env is made.
void register_tasks(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive::procgen
