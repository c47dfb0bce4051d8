// Gymnasium's MuJoCo tasks, v4 and v5 (Ant, HalfCheetah, Hopper, Humanoid, HumanoidStandup,
// InvertedPendulum, InvertedDoublePendulum, Pusher, Reacher, Swimmer, Walker2d).
#pragma once

#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive {

// Register every MuJoCo task id in `registry`. `assets_dir` is Gymnasium's
// envs/mujoco/assets folder (relative xml_file names resolve against it); this also installs
// MuJoCo's error and warning handlers.
// Gymnasium's MuJoCo tasks; `assets_dir` (DATA: Gymnasium's MuJoCo assets) holds their models.
void register_mujoco(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
