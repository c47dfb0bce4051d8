// Gymnasium's MuJoCo tasks, v4 and v5 (Ant, HalfCheetah, Hopper, Humanoid, HumanoidStandup,
// InvertedPendulum, InvertedDoublePendulum, Pusher, Reacher, Swimmer, Walker2d).
#pragma once

#include <string>
#include <vector>

#include "../../core/env.h"

namespace envhive {

// Append one TaskDef per MuJoCo task id to `registry`. `assets_dir` is Gymnasium's
// envs/mujoco/assets folder (relative xml_file names resolve against it); this also installs
// MuJoCo's error and warning handlers.
void register_mujoco(std::vector<TaskDef>& registry, const std::string& assets_dir);

}  // namespace envhive
