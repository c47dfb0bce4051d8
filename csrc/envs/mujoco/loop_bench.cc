// mujoco_loop_bench TASK_ID [SECONDS] [SEED] assets_dir=ASSETS_DIR: the single-thread limit
// (core/loop_bench.h).
#include "../../core/loop_bench.h"
#include "mujoco.h"

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, envhive::register_mujoco); }
