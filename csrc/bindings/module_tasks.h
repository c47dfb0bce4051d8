// Each extension module defines these once: the families it carries, and any extra bindings.
#pragma once
#include <nanobind/nanobind.h>

#include "../core/task.h"

namespace envhive {
// Registers the module's tasks (called once, when the module is imported).
void register_module_tasks(TaskRegistry& registry);
// Module-specific Python functions beyond the common ones (may do nothing).
void bind_module_extras(nanobind::module_& m);
}  // namespace envhive
