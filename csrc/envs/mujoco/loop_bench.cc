// mujoco_loop_bench: one env of a MuJoCo task stepped in a plain single-threaded C++ loop, no
// pool and no Python: the per-core speed limit envhive's pool is measured against.
//
//   mujoco_loop_bench ASSETS_DIR TASK_ID [SECONDS] [SEED]
//
// Random float32 actions (drawn up front, uniform in the action bounds), reset on termination
// and at the task's time limit, observation and info written to a row each step as the pool
// does. Prints one line: `task=<id> steps=<n> seconds=<s> steps_per_s=<r>`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "mujoco.h"

int main(int argc, char** argv) {
  using namespace envhive;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ASSETS_DIR TASK_ID [SECONDS] [SEED]\n", argv[0]);
    return 2;
  }
  const std::string task_id = argv[2];
  const double seconds = argc > 3 ? std::atof(argv[3]) : 3.0;
  const uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  std::vector<TaskDef> registry;
  register_mujoco(registry, argv[1]);
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

  const auto& act = spaces.action;
  const size_t nact = act.count();
  constexpr size_t kActionRows = 4096;
  std::vector<float> actions(kActionRows * nact);
  std::mt19937_64 gen(seed);
  for (size_t i = 0; i < actions.size(); ++i) {
    std::uniform_real_distribution<double> u(act.low_at(i % nact), act.high_at(i % nact));
    actions[i] = static_cast<float>(u(gen));
  }
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
      for (int k = 0; k < 64; ++k) {
        const StepResult r = env->step(actions.data() + (static_cast<size_t>(steps) % kActionRows) * nact);
        ++steps;
        env->write_obs(obs.data());
        if (!info_ptr.empty()) env->write_info(info_ptr.data());
        if (r.terminated || (max_steps > 0 && ++elapsed >= max_steps)) {
          env->reset();
          env->write_obs(obs.data());
          elapsed = 0;
        }
      }
      if (std::chrono::steady_clock::now() >= stop) break;
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_pair(steps, took);
  };
  run(0.5);  // warm-up
  const auto [steps, took] = run(seconds);
  std::printf("task=%s steps=%lld seconds=%.3f steps_per_s=%.1f\n", task_id.c_str(), static_cast<long long>(steps),
              took, static_cast<double>(steps) / took);
  return 0;
}
