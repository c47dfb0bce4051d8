// robotics_loop_bench ASSETS_DIR TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h).
// ASSETS_DIR: gymnasium_robotics/envs/assets (python -c "import envhive.families.robotics as r; print(r.assets_dir())").
#include "../../core/loop_bench.h"
#include "robotics.h"

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, envhive::robotics::register_tasks); }
