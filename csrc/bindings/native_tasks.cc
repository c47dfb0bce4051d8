// envhive._native: the families with no third-party dependency.
#include "../envs/classic_control/classic_control.h"
#include "../envs/testing/testing.h"
#include "module_tasks.h"

namespace envhive {

void register_module_tasks(std::vector<TaskDef>& registry) {
  register_classic_control(registry);
  register_testing(registry);
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
