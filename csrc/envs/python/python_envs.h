// Python-written environments: the bindings envhive.authoring uses to register compiled tasks.
#pragma once
#include <nanobind/nanobind.h>

#include "../../core/task.h"

namespace envhive::python {

// Adds register_compiled_task(spec: dict) and compiled_failures(clear: bool) to the module.
void bind_python_envs(nanobind::module_& m);
// The family's register function: no task at load (envhive.authoring registers them at run time).
void register_tasks(TaskRegistry& registry);

}  // namespace envhive::python
