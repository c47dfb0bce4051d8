// procgen_loop_bench TASK_ID [SECONDS] [SEED] engine_dir=DIR: one env of TASK_ID in a single-thread
// C++ loop (core/loop_bench.h), DIR holding the unpacked engine (libenv.so, assets/).
// procgen_loop_bench --engine DIR GAME [SECONDS] [SEED]: the engine's own loop, nothing of
// envhive's around it: one libenv instance (num=1, num_threads=0, hard mode), random actions, its
// libenv_act in a loop. Both print `task=<id> steps=<n> seconds=<s> steps_per_s=<r>` (the second also
// `cpu_seconds=<c>`: the process's CPU time over the timed run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "../../core/loop_bench.h"
#include "engine_instance.h"
#include "engine_library.h"
#include "procgen.h"

namespace {

int engine_loop(const std::string& folder, const std::string& game, double seconds, int32_t seed) {
  envhive::procgen::set_engine_locator(
      [folder] { return envhive::procgen::EngineFiles{folder + "/libenv.so", folder + "/assets/"}; });
  envhive::procgen::EngineOptions options;
  options.env_name = game;
  envhive::procgen::EngineInstance engine(options, seed, false);
  std::mt19937 gen(static_cast<uint32_t>(seed));
  std::vector<int32_t> actions(4096);
  for (auto& a : actions) a = static_cast<int32_t>(gen() % envhive::procgen::kActions);
  using clock = std::chrono::steady_clock;
  int64_t steps = 0;
  double elapsed = 0;
  const auto run = [&](double secs) {  // as run_loop_bench: a warm-up, then the timed run
    const auto start = clock::now();
    steps = 0;
    elapsed = 0;
    while (elapsed < secs) {
      for (int i = 0; i < 256; ++i, ++steps) engine.act(actions[static_cast<size_t>(steps) % actions.size()]);
      elapsed = std::chrono::duration<double>(clock::now() - start).count();
    }
  };
  run(std::min(1.0, seconds / 2));
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  run(seconds);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  const double cpu = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec);
  std::printf("task=%s steps=%lld seconds=%.3f steps_per_s=%.1f cpu_seconds=%.3f\n", game.c_str(),
              static_cast<long long>(steps), elapsed, static_cast<double>(steps) / elapsed, cpu);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--engine") == 0)
    return engine_loop(argv[2], argv[3], argc > 4 ? std::atof(argv[4]) : 3.0,
                       argc > 5 ? static_cast<int32_t>(std::atol(argv[5])) : 0);
  return envhive::run_loop_bench(argc, argv, envhive::procgen::register_tasks);
}
