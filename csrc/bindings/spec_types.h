// The declarations of csrc/core/spec.h and task.h as Python types (SpaceSpec, InfoSpec,
// ConfigField, Spaces, TaskInfo), and the one conversion of config values between Python and C++.
// Every module binds them in its own nanobind domain; Python code reads them by attribute.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "../core/task.h"

namespace envhive::bindings {

namespace nb = nanobind;

// A Python value as a ConfigValue: bool, int, float, str, or a sequence of real numbers (a list of
// floats). TypeError naming `name` for anything else.
ConfigValue config_value_from_py(const std::string& name, nb::handle value);
nb::object config_value_to_py(const ConfigValue& value);
// A dict of config values (str -> value) as the task's resolved Config (ValueError on unknown names).
Config config_from_py(const TaskDef& task, nb::dict values);
// The task's id, family, doc, time limit, config fields and reset options.
struct TaskInfo {
  TaskMeta meta;
  std::vector<ConfigField> config;
};

// "box", "discrete", "text", "dict" or "tuple": a space's kind as Python reads it.
const char* space_kind_name(SpaceSpec::Kind kind);

// Binds SpaceSpec, InfoSpec, ConfigField, Spaces, TaskInfo into `m`.
void bind_spec_types(nb::module_& m);

}  // namespace envhive::bindings
