// craftax_loop_bench - DATA_DIR TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h)
// of a Craftax task (the data folder argument is unused: the family needs no files).
#include "../../core/loop_bench.h"
#include "classic_env.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const std::string&) {
    envhive::craftax::register_classic_tasks(registry);
  });
}
