// atari_loop_bench: one env of an Atari task stepped in a plain single-threaded C++ loop, no
// pool and no Python: the per-core speed limit envhive's pool is measured against.
//
//   atari_loop_bench ROM_DIR TASK_ID [SECONDS] [SEED]
//
// The task's default config (EnvPool's), random actions drawn up front, reset on termination and
// at the time limit, the stacked observation and infos written to a row every step as the pool
// does. Prints one line: `task=<id> steps=<n> seconds=<s> steps_per_s=<r>`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "atari.h"

int main(int argc, char** argv) {
  using namespace envhive;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROM_DIR TASK_ID [SECONDS] [SEED]\n", argv[0]);
    return 2;
  }
  const std::string task_id = argv[2];
  const double seconds = argc > 3 ? std::atof(argv[3]) : 3.0;
  const uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  std::vector<TaskDef> registry;
  register_atari(registry, argv[1]);
  const TaskDef* task = nullptr;
  for (const auto& t : registry)
    if (t.id == task_id) task = &t;
  if (!task) {
    std::fprintf(stderr, "unknown task %s\n", task_id.c_str());
    return 2;
  }
  std::map<std::string, ConfigValue> values;
  for (const auto& f : task->config) values[f.name] = f.default_value;
  const Config config(values);
  const Spaces spaces = task->spaces(config);
  const int64_t max_steps = config.integer("max_episode_steps");
  auto env = task->make(config, 0);
  env->seed(seed);

  constexpr size_t kActions = 4096;
  std::vector<int64_t> actions(kActions);
  std::mt19937_64 gen(seed);
  for (auto& a : actions) a = static_cast<int64_t>(gen() % static_cast<uint64_t>(spaces.action.n));
  std::vector<std::byte> obs(spaces.observation.bytes());
  std::vector<std::vector<std::byte>> info(spaces.infos.size());
  std::vector<void*> info_ptr;
  for (size_t f = 0; f < spaces.infos.size(); ++f) {
    info[f].resize(spaces.infos[f].bytes() + 1);
    info_ptr.push_back(info[f].data());
  }

  auto run = [&](double secs) {
    env->reset();
    int64_t elapsed = 0, steps = 0;
    const auto start = std::chrono::steady_clock::now();
    const auto stop = start + std::chrono::duration<double>(secs);
    for (;;) {
      for (int k = 0; k < 16; ++k) {
        const StepResult r = env->step(&actions[static_cast<size_t>(steps) % kActions]);
        ++steps;
        env->write_obs(obs.data());
        env->write_info(info_ptr.data());
        if (r.terminated || (max_steps > 0 && ++elapsed >= max_steps)) {
          env->reset();
          env->write_obs(obs.data());
          elapsed = 0;
        }
      }
      if (std::chrono::steady_clock::now() >= stop) break;
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_pair(steps, dt);
  };
  run(std::min(1.0, seconds / 2));  // warm-up
  const auto [steps, dt] = run(seconds);
  std::printf("task=%s steps=%lld seconds=%.3f steps_per_s=%.1f\n", task_id.c_str(), static_cast<long long>(steps), dt,
              static_cast<double>(steps) / dt);
  return 0;
}
