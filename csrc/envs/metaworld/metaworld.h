// Meta-World v3 (the 50 Sawyer tasks and their MT / ML benchmarks) as envhive tasks.
#pragma once

#include "../../core/task.h"

namespace envhive {

// Registers every Meta-World id in `registry`. `data`'s assets_dir (DATA: the installed metaworld
// package's assets folder) holds the models, loaded when the first env of a task is made; without
// it (metaworld not installed) the ids are listed and making one raises, naming the install command.
void register_metaworld(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
