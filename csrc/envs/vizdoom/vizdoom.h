// ViZDoom under EnvPool 1.2.5's 21 ids (vizdoom_env.h), on the `vizdoom` wheel's client and engine.
#pragma once

#include "../../core/family_data.h"
#include "../../core/task.h"

namespace envhive::vizdoom {

// Where the wheel's files and a scenario's cfg / wad are: the family's resolver
// (envhive.families.vizdoom.resolve: key "doom", and "scenario:<name>"), asked when an env needs them.
void register_tasks(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive::vizdoom
