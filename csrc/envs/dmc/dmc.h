// The DeepMind Control Suite (dm_control.suite.ALL_TASKS) as envhive tasks, each under two ids:
// EnvPool's (CheetahRun-v1) and Shimmy's (dm_control/cheetah-run-v0).
#pragma once

#include "../../core/task.h"
#include "model_source.h"

namespace envhive {

// Register every suite task in `registry`; models come from `source` (dm_control's XML).
void register_dmc(TaskRegistry& registry, dmc::ModelSource source);
// The family's register function: models from the family's resolver (src/envhive/families/dmc.py),
// which hands a task's files for the key "<domain>/<task>" and its model kwargs: the XML first,
// then its assets.
void register_dmc(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
