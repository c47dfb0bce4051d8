#pragma once

#include "../../core/task.h"

namespace envhive {
// Dummy-v0, an engine test task (hidden: not listed, not registered with Gymnasium).
void register_testing(TaskRegistry& registry);
}  // namespace envhive
