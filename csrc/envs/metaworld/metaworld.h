// Meta-World v3 (the 50 Sawyer tasks and their MT / ML benchmarks) as envhive tasks.
#pragma once

#include <functional>
#include <string>

#include "../../core/task.h"

namespace envhive {

namespace metaworld {
// What the module learns from Python (envhive.families.metaworld) the first time an env is made:
// the installed metaworld package's asset folder and how numpy's ddot rounds.
struct Runtime {
  std::string assets_dir;
  bool blas_dot_fma = false;
};
using RuntimeSource = std::function<Runtime()>;
}  // namespace metaworld

// Registers every Meta-World id in `registry`; `source` is asked once, when the first env is made.
void register_metaworld(TaskRegistry& registry, metaworld::RuntimeSource source);

}  // namespace envhive
