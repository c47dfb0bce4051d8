// Where an env's rand vecs (SawyerXYZEnv._get_state_rand_vec) come from, for each way Meta-World
// makes an env:
//  - kSeeded: a fresh vector at every call, np_random.uniform(low, high) on the env's PCG64 (the
//    env seeded s with _freeze_rand_vec = False and seeded_rand_vec = True; EnvPool's behaviour);
//  - kFixed: one vector for the env's life, drawn at construction from numpy's legacy global
//    RandomState seeded s (ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE / _GOAL_HIDDEN[name](seed=s));
//  - kRandomTask / kPseudoRandomTask: the benchmark's task list (_make_tasks: 50 vectors per task
//    class from the legacy RandomState seeded s, through each class's reset), and before each reset
//    RandomTaskSelectWrapper's np_random.choice (MT1, MT10, MT50) or PseudoRandomTaskSelectWrapper's
//    cyclic walk with a np_random.shuffle at each wrap (ML1, ML10, ML45).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../../core/random_state.h"
#include "../../core/rng.h"

namespace envhive::metaworld {

using RandVec = std::vector<double>;
using DrawFn = std::function<RandVec()>;
// A task's draw loop: what one reset_model call draws (the first vector, and more while the task's
// condition rejects it). The conditions depend only on the vectors, never on the simulation.
using DrawLoop = RandVec (*)(const DrawFn& draw);
RandVec draw_once(const DrawFn& draw);

enum class RandVecMode { kSeeded, kFixed, kRandomTask, kPseudoRandomTask };

// What a pool's envs share: the mode, and for the benchmarks their structure. Env i belongs to
// block i / block_size, seeded (pool seed) + block (the Meta-World vector env of that seed), and is
// member i % block_size of it.
struct RandVecPlan {
  RandVecMode mode = RandVecMode::kSeeded;
  std::vector<std::string> classes;  // the benchmark's task classes in its order (the env's own alone for MT1/ML1)
  int block_size = 1;
  int tasks_per_class = 50;        // _N_GOALS
  int64_t seed_offset = 0;         // ML1's test split draws its tasks with seed + 1
  int64_t total_tasks_per_cls = -1;  // make_ml_envs' total_tasks_per_cls (-1: all)
  int envs_per_class = 1;          // ML: meta_batch_size / len(classes)
};

// The class an env runs and which of its tasks it samples from.
struct EnvSlot {
  int class_index = 0;
  int subset = 0;  // ML: tasks[subset::envs_per_class]
};
EnvSlot env_slot(const RandVecPlan& plan, int env_index);

// numpy's legacy RandomState.uniform(low, high, size=n): low[i] + (high[i] - low[i]) * random_sample().
RandVec legacy_uniform(RandomState& rs, const std::vector<double>& low, const std::vector<double>& high);
// One env.reset() with the rand vec unfrozen and drawn from numpy's global RandomState: reset_model
// runs twice (SawyerXYZEnv.reset, then MujocoEnv.reset), each through the task's draw loop; the env
// keeps the last vector.
RandVec unfrozen_reset(RandomState& rs, const std::string& task);

// The benchmark's task vectors of every class, in _make_tasks's order (what Meta-World's
// Benchmark.train_tasks / test_tasks hold), for a legacy seed.
std::vector<std::vector<RandVec>> benchmark_rand_vecs(const RandVecPlan& plan, uint32_t seed);

// The draw loop and reset space of a task class, by name (the task table fills these).
DrawLoop draw_loop_of(const std::string& task);
void random_reset_space(const std::string& task, std::vector<double>& low, std::vector<double>& high);

// One env's position in its plan: seeded when the env is, consulted by each reset.
class RandVecCursor {
 public:
  // Set up for the env's seed: the task list of the benchmark (nothing for kSeeded / kFixed).
  void start(const RandVecPlan& plan, int env_index, uint64_t env_seed);
  // Before a reset: the task wrappers' choice (np_random is the env's generator); the chosen task's
  // vector, or nothing outside the task-list modes.
  const RandVec* select(const RandVecPlan& plan, Pcg64& np_random);

 private:
  std::vector<RandVec> tasks_;
  int current_ = -1;
};

}  // namespace envhive::metaworld
