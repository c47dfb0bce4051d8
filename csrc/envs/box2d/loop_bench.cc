// box2d_loop_bench TASK_ID [SECONDS] [SEED] [images_dir=DIR]: the single-thread limit
// (core/loop_bench.h); CarRacing's observations draw pygame's glyphs, handed in images_dir.
#include "../../core/loop_bench.h"
#include "box2d.h"

int main(int argc, char** argv) {
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& r, const envhive::FamilyData&) {
    envhive::register_box2d(r);
  });
}
