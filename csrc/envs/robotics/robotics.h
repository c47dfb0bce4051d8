// Gymnasium-Robotics (the gymnasium-robotics package) on envhive's pool: Fetch (v4).
#pragma once

#include <string>

#include "../../core/task.h"

namespace envhive::robotics {

// Register every task id. `assets_dir`: gymnasium_robotics/envs/assets of the installed package
// (envhive.families.robotics.assets_dir(); "" when it is not installed: making a task then
// raises, naming the package). Installs MuJoCo's error handlers.
void register_tasks(TaskRegistry& registry, const std::string& assets_dir);

}  // namespace envhive::robotics
