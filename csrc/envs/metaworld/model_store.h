// The compiled models of the Meta-World tasks: one per XML file of the installed metaworld
// package, loaded on first use with SawyerMocapBase.reset_mocap_welds applied, shared read-only by
// every env that steps it (each env edits a shallow copy: sawyer_env.h).
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <string>

namespace envhive::metaworld {

// The metaworld package's assets folder (set once by the register function; empty: not installed).
void set_assets_dir(std::string dir);
// The compiled model of `xml` (a path in the assets folder); throws naming the install command
// when the metaworld package is missing.
std::shared_ptr<const mjModel> task_model(const std::string& xml);

}  // namespace envhive::metaworld
