// Each extension module defines this once: the families it carries.
#pragma once
#include <vector>

#include "../core/env.h"

namespace envhive {
void register_module_tasks(std::vector<TaskDef>& registry);
}
