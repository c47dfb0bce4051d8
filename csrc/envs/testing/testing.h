#pragma once
#include <vector>

#include "../../core/env.h"

namespace envhive {
void register_testing(std::vector<TaskDef>& registry);
}
