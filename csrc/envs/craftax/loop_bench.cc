// craftax_loop_bench TASK_ID [SECONDS] [SEED] [textures_dir=DIR]: the single-thread limit
// (core/loop_bench.h) of a Craftax task; DIR (the pixel task's textures) as the descriptor's
// loop_bench_data writes it.
#include "../../core/loop_bench.h"
#include "craftax.h"

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, envhive::craftax::register_tasks); }
