// envhive._minigrid: minigrid's MiniGrid and BabyAI environments, in C++ (no runtime dependency).
#include "../envs/minigrid/minigrid.h"
#include "module_tasks.h"

namespace envhive {

void register_module_tasks(TaskRegistry& registry) {
  register_minigrid(registry);
  register_babyai(registry);
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
