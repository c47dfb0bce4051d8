// The per-core speed limit a pool is measured against: one env of a task stepped in a plain
// single-threaded C++ loop, no pool and no Python. Each family's loop_bench.cc is a main() that
// calls run_loop_bench with its register function.
//
//   <family>_loop_bench TASK_ID [SECONDS] [SEED] [KEY=VALUE ...]
//   <family>_loop_bench --images TASK_ID [KEY=VALUE ...]
//
// KEY=VALUE: the family's data (FamilyData::value), as envhive hands it when the module loads
// (envhive.bench's loop-bench engine passes the family's DATA, resolved, and what its descriptor
// adds). Images a task's observations draw (TaskMeta::images_at_start: CarRacing's glyphs, which
// only pygame makes) come from Python too: `--images TASK_ID` lists them (name, source), and the
// caller writes each as <images_dir>/<name, '/' as '__'>.rgba (int32 width, int32 height, then the
// RGBA bytes) and passes images_dir=<that folder>.
//
// The task's default config, random actions drawn up front (uniform in a Box's bounds, or over
// a Discrete's values), reset on termination and at the time limit, observation and infos
// written to a row every step as the pool does. Prints one line:
// `task=<id> steps=<n> seconds=<s> steps_per_s=<r>`.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "render.h"
#include "task.h"

namespace envhive {

using RegisterFamily = void (*)(TaskRegistry&, const FamilyData&);

// The images the tasks' observations draw from the start, read from `dir` into RenderImages.
inline void load_start_images(const TaskRegistry& registry, const std::string& dir) {
  for (const auto& task : registry.tasks()) {
    if (!task.meta.images_at_start) continue;
    for (const auto& [name, source] : task.meta.render_images) {
      std::string file = name;
      for (size_t p = file.find('/'); p != std::string::npos; p = file.find('/', p + 2)) file.replace(p, 1, "__");
      std::ifstream in(dir + "/" + file + ".rgba", std::ios::binary);
      if (!in) continue;  // the task then fails at its first reset, naming the image
      int32_t size[2];
      in.read(reinterpret_cast<char*>(size), sizeof(size));
      RgbaImage img;
      img.width = size[0];
      img.height = size[1];
      img.rgba.resize(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) * 4);
      in.read(reinterpret_cast<char*>(img.rgba.data()), static_cast<std::streamsize>(img.rgba.size()));
      RenderImages::get().put(name, std::move(img));
    }
  }
}

inline int run_loop_bench(int argc, char** argv, RegisterFamily register_family) {
  std::vector<std::string> positional;  // TASK_ID [SECONDS] [SEED], or --images TASK_ID
  std::map<std::string, std::string> values;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos)
      positional.push_back(arg);
    else
      values[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  const bool list_images = !positional.empty() && positional[0] == "--images";
  if (list_images) positional.erase(positional.begin());
  if (positional.empty()) {
    std::fprintf(stderr, "usage: %s [--images] TASK_ID [SECONDS] [SEED] [KEY=VALUE ...]\n", argv[0]);
    return 2;
  }
  const std::string task_id = positional[0];
  const double seconds = positional.size() > 1 ? std::atof(positional[1].c_str()) : 3.0;
  const uint64_t seed = positional.size() > 2 ? std::strtoull(positional[2].c_str(), nullptr, 10) : 0;
  const FamilyData data(argv[0], std::move(values), {});
  TaskRegistry registry;
  register_family(registry, data);
  if (data.has("images_dir")) load_start_images(registry, data.value("images_dir"));
  const TaskDef* task = registry.find(task_id);
  if (!task) {
    std::fprintf(stderr, "unknown task %s\n", task_id.c_str());
    return 2;
  }
  if (list_images) {
    if (task->meta.images_at_start)
      for (const auto& [name, source] : task->meta.render_images) std::printf("%s\t%s\n", name.c_str(), source.c_str());
    return 0;
  }
  const Config config = task->resolve_config({});
  const Spaces spaces = task->resolve_spaces(config);
  const int64_t max_steps = config.integer("max_episode_steps");
  auto env = task->make(config, 0);
  env->seed(seed);

  // Action rows in the layout the pool hands to Env::step.
  const auto& act = spaces.action;
  const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
  const size_t row_bytes = discrete ? sizeof(int64_t) : act.bytes();
  constexpr size_t kActionRows = 4096;
  std::vector<std::byte> actions(kActionRows * row_bytes);
  std::mt19937_64 gen(seed);
  for (size_t r = 0; r < kActionRows; ++r) {
    std::byte* row = actions.data() + r * row_bytes;
    if (discrete) {
      const int64_t a = act.start + static_cast<int64_t>(gen() % static_cast<uint64_t>(act.n));
      std::memcpy(row, &a, sizeof(a));
      continue;
    }
    for (size_t i = 0; i < act.count(); ++i) {
      if (act.dtype == DType::kInt64) {  // a multi-agent task's Discrete agents: one value in [low, high] each
        const auto lo = static_cast<int64_t>(act.low_at(i)), span = static_cast<int64_t>(act.high_at(i)) - lo + 1;
        const int64_t a = lo + static_cast<int64_t>(gen() % static_cast<uint64_t>(span));
        std::memcpy(row + i * sizeof(int64_t), &a, sizeof(a));
        continue;
      }
      const double v = std::uniform_real_distribution<double>(act.low_at(i), act.high_at(i))(gen);
      if (act.dtype == DType::kFloat64) {
        std::memcpy(row + i * sizeof(double), &v, sizeof(double));
      } else {
        const float f = static_cast<float>(v);
        std::memcpy(row + i * sizeof(float), &f, sizeof(float));
      }
    }
  }
  // One buffer per observation leaf (written as the pool writes them: write_obs for one leaf).
  const std::vector<SpaceLeaf> leaves = space_leaves(spaces.observation);
  std::vector<std::vector<std::byte>> obs(leaves.size());
  std::vector<void*> obs_ptr;
  for (size_t k = 0; k < leaves.size(); ++k) {
    obs[k].resize(leaves[k].spec->bytes() + 1);
    obs_ptr.push_back(obs[k].data());
  }
  const bool structured = !spaces.observation.is_leaf();
  auto write_obs = [&] {
    if (structured)
      env->write_obs_leaves(obs_ptr.data());
    else
      env->write_obs(obs_ptr[0]);
  };
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
        const StepResult r = env->step(actions.data() + (static_cast<size_t>(steps) % kActionRows) * row_bytes);
        ++steps;
        write_obs();
        if (!info_ptr.empty()) env->write_info(info_ptr.data());
        if (r.terminated || r.truncated || (max_steps > 0 && ++elapsed >= max_steps)) {
          env->reset();
          write_obs();
          elapsed = 0;
        }
      }
      if (std::chrono::steady_clock::now() >= stop) break;
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_pair(steps, took);
  };
  run(std::min(1.0, seconds / 2));  // warm-up
  const auto [steps, took] = run(seconds);
  std::printf("task=%s steps=%lld seconds=%.3f steps_per_s=%.1f\n", task_id.c_str(), static_cast<long long>(steps),
              took, static_cast<double>(steps) / took);
  return 0;
}

}  // namespace envhive
