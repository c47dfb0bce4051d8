// atari_loop_bench TASK_ID [SECONDS] [SEED] rom_dir=ROM_DIR: the single-thread limit (core/loop_bench.h).
#include "../../core/loop_bench.h"
#include "atari.h"

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, envhive::register_atari); }
