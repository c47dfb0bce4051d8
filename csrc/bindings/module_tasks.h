// Each extension module defines these once: the families it carries, and any extra bindings.
#pragma once
#include <nanobind/nanobind.h>

#include <vector>

#include "../core/env.h"

namespace envhive {
void register_module_tasks(std::vector<TaskDef>& registry);
// Module-specific Python functions beyond the common ones (may do nothing).
void bind_module_extras(nanobind::module_& m);
}  // namespace envhive
