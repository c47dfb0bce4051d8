// mpe_loop_bench TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h) of an MPE
// task (the family needs no data).
#include "../../core/loop_bench.h"
#include "mpe.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& registry, const envhive::FamilyData& data) {
    envhive::mpe::register_tasks(registry, data);
  });
}
