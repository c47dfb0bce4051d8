// The compiled models of the Meta-World tasks: one per XML file of the installed metaworld
// package, loaded on first use with SawyerMocapBase.reset_mocap_welds applied, shared read-only by
// every env that steps it (each env edits a shallow copy: sawyer_env.h).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <string>

#include "metaworld.h"

namespace envhive::metaworld {

void set_runtime_source(RuntimeSource source);
// The runtime (asked of Python once; throws when the metaworld package is missing).
const Runtime& runtime();
std::shared_ptr<const mjModel> task_model(const std::string& xml);

}  // namespace envhive::metaworld
