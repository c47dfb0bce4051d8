// What every extension module defines once, in the file envhive_add_family generates for it
// (cmake/envhive_family.cmake): the families it carries and their data declarations.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "../core/family_data.h"
#include "../core/task.h"

namespace envhive {
// One DATA entry of a family: `key` is `path` inside the installed Python package `package`.
struct DataDeclaration {
  const char* family;
  const char* key;
  const char* package;
  const char* path;
};
// Registers every family's tasks, each with its data (called once, when envhive loads the module).
void register_module_tasks(TaskRegistry& registry, const ModuleData& data);
// The module's DATA declarations, every family's, in declaration order.
const std::vector<DataDeclaration>& module_data_declarations();
// The names of the module's families (envhive_add_family's NAME), in declaration order.
const std::vector<std::string>& module_families();
// The families' own Python functions (BINDINGS; may be none).
void bind_module_extras(nanobind::module_& m);
}  // namespace envhive
