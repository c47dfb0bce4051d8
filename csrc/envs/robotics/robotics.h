// Gymnasium-Robotics (the gymnasium-robotics package) on envhive's pool: Fetch, the Shadow Hand,
// Adroit, PointMaze, AntMaze and FrankaKitchen, in envhive._mujoco beside Gymnasium's MuJoCo tasks.
#pragma once

#include "../../core/family_data.h"
#include "../../core/task.h"

namespace envhive::robotics {

// Register every task id. `data`: `assets_dir` (DATA: gymnasium_robotics/envs/assets of the installed
// package; without it making a task raises, naming the extra) and the family's resolver, which builds
// a maze's model ("<agent>/<task id>" -> maze.xml, maze.rows; envhive.families.robotics.resolve).
// `data` outlives the tasks (the module keeps it). Installs MuJoCo's error handlers.
void register_tasks(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive::robotics
