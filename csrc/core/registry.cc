#include "env.h"

namespace envhive {

std::vector<TaskDef>& task_registry() {
  static std::vector<TaskDef> registry;
  return registry;
}

}  // namespace envhive
