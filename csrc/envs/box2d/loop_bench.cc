// box2d_loop_bench - TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h).
#include "../../core/loop_bench.h"
#include "box2d.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& r, const std::string&) { envhive::register_box2d(r); });
}
