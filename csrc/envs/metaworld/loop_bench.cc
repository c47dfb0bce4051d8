// metaworld_loop_bench ASSETS_DIR TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h)
// of a Meta-World task; ASSETS_DIR is the metaworld package's assets folder.
#include <string>

#include "../../core/loop_bench.h"
#include "metaworld.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const std::string& assets) {
    envhive::register_metaworld(registry, [assets] { return envhive::metaworld::Runtime{assets, false}; });
  });
}
