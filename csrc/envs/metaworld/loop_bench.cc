// metaworld_loop_bench TASK_ID [SECONDS] [SEED] assets_dir=ASSETS_DIR: the single-thread limit
// (core/loop_bench.h) of a Meta-World task; ASSETS_DIR is the metaworld package's assets folder.
#include "../../core/loop_bench.h"
#include "metaworld.h"

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, envhive::register_metaworld); }
