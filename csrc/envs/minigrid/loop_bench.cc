// minigrid_loop_bench TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h) of a
// MiniGrid or BabyAI task (the family needs no data).
#include "../../core/loop_bench.h"
#include "minigrid.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const envhive::FamilyData&) {
    envhive::register_minigrid_families(registry);
  });
}
