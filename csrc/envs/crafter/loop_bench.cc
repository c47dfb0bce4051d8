// crafter_loop_bench TASK_ID [SECONDS] [SEED] textures_dir=DIR: the single-thread limit
// (core/loop_bench.h) of a Crafter task; DIR holds crafter's textures as the descriptor's
// loop_bench_data writes them.
#include "../../core/loop_bench.h"
#include "crafter.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const envhive::FamilyData& data) {
    envhive::crafter::register_tasks(registry, data);
  });
}
