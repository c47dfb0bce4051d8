#include "rand_vec.h"

#include <random>
#include <stdexcept>

namespace envhive::metaworld {

RandVec draw_once(const DrawFn& draw) { return draw(); }

EnvSlot env_slot(const RandVecPlan& plan, int env_index) {
  const int member = env_index % plan.block_size;
  return {member / plan.envs_per_class, member % plan.envs_per_class};
}

RandVec legacy_uniform(RandomState& rs, const std::vector<double>& low, const std::vector<double>& high) {
  RandVec v(low.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = low[i] + (high[i] - low[i]) * rs.random_sample();
  return v;
}
RandVec unfrozen_reset(RandomState& rs, const std::string& task) {
  std::vector<double> low, high;
  random_reset_space(task, low, high);
  const DrawLoop loop = draw_loop_of(task);
  const DrawFn draw = [&] { return legacy_uniform(rs, low, high); };
  loop(draw);
  return loop(draw);
}

std::vector<std::vector<RandVec>> benchmark_rand_vecs(const RandVecPlan& plan, uint32_t seed) {
  RandomState rs(seed);
  std::vector<std::vector<RandVec>> out;
  for (const std::string& task : plan.classes) {
    std::vector<RandVec> vecs;
    for (int g = 0; g < plan.tasks_per_class; ++g) vecs.push_back(unfrozen_reset(rs, task));
    for (size_t a = 0; a < vecs.size(); ++a)  // _make_tasks asserts the goals are unique
      for (size_t b = a + 1; b < vecs.size(); ++b)
        if (vecs[a] == vecs[b])
          throw std::runtime_error("Meta-World's task sampling drew a repeated goal for " + task +
                                   " (metaworld raises an AssertionError for this seed)");
    out.push_back(std::move(vecs));
  }
  return out;
}

void RandVecCursor::start(const RandVecPlan& plan, int env_index, uint64_t env_seed) {
  current_ = -1;
  tasks_.clear();
  if (plan.mode == RandVecMode::kSeeded) return;
  if (env_seed > 0xffffffffull)
    throw std::invalid_argument("Meta-World seeds numpy's legacy RandomState: seeds must be in [0, 2**32 - 1]");
  if (plan.mode == RandVecMode::kFixed) return;  // the env draws it in its constructor's reset
  const EnvSlot slot = env_slot(plan, env_index);
  std::vector<std::vector<RandVec>> all =
      benchmark_rand_vecs(plan, static_cast<uint32_t>(static_cast<int64_t>(env_seed) + plan.seed_offset));
  std::vector<RandVec> mine = std::move(all.at(static_cast<size_t>(slot.class_index)));
  if (plan.total_tasks_per_cls >= 0 && static_cast<size_t>(plan.total_tasks_per_cls) < mine.size())
    mine.resize(static_cast<size_t>(plan.total_tasks_per_cls));
  for (size_t i = static_cast<size_t>(slot.subset); i < mine.size(); i += static_cast<size_t>(plan.envs_per_class))
    tasks_.push_back(mine[i]);
}

const RandVec* RandVecCursor::select(const RandVecPlan& plan, Pcg64& np_random) {
  switch (plan.mode) {
    case RandVecMode::kSeeded:
      return nullptr;
    case RandVecMode::kFixed:
      return nullptr;
    case RandVecMode::kRandomTask:  // RandomTaskSelectWrapper: np_random.choice(len(tasks))
      current_ = static_cast<int>(np_random.integers(0, static_cast<int64_t>(tasks_.size())));
      return &tasks_[static_cast<size_t>(current_)];
    case RandVecMode::kPseudoRandomTask:  // PseudoRandomTaskSelectWrapper._set_pseudo_random_task
      current_ = (current_ + 1) % static_cast<int>(tasks_.size());
      if (current_ == 0) np_random.shuffle(tasks_.data(), tasks_.size());
      return &tasks_[static_cast<size_t>(current_)];
  }
  return nullptr;
}

}  // namespace envhive::metaworld
