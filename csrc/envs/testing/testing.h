#pragma once

#include "../../core/task.h"

namespace envhive {
// Dummy-v0, StructuredDummy-v0, RngDraws-v0 and MultiAgentDummy-v0, engine test tasks (hidden: not listed, not registered with Gymnasium).
void register_testing(TaskRegistry& registry);
}  // namespace envhive
