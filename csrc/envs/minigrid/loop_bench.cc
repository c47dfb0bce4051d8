// minigrid_loop_bench - TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h) of a
// MiniGrid or BabyAI task (the data folder argument is unused: the family needs no files).
#include "../../core/loop_bench.h"
#include "minigrid.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const std::string&) {
    envhive::register_minigrid(registry);
    envhive::register_babyai(registry);
  });
}
