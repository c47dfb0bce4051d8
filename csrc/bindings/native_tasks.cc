// envhive._native: the families with no third-party dependency.
#include "../envs/classic_control/classic_control.h"
#include "../envs/python/python_envs.h"
#include "../envs/testing/testing.h"
#include "module_tasks.h"

namespace envhive {

void register_module_tasks(TaskRegistry& registry) {
  register_classic_control(registry);
  register_testing(registry);
}

// Environments written in Python register here at run time (envhive.authoring).
void bind_module_extras(nanobind::module_& m) { python::bind_python_envs(m); }

}  // namespace envhive
