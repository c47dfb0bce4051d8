// Craftax-Classic-Symbolic-v1: craftax 1.6.1's Craftax-Classic (its auto-resetting step, the
// symbolic observation) on envhive's pool.
#pragma once

#include <optional>
#include <vector>

#include "../../core/task.h"
#include "classic_state.h"

namespace envhive::craftax {

class ClassicSymbolicEnv final : public Env {
 public:
  static std::vector<ConfigField> config() { return {}; }
  static Spaces spaces(const Config&);
  ClassicSymbolicEnv(const Config& c, int env_id);

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;

  // The keys follow craftax's vmapped loop for env i of N, from PRNGKey(seed) (docs/envs.md):
  //   rng, _rng = split(rng); reset keys = split(_rng, N)   (then, each step)
  //   rng, _rng = split(rng); step keys = split(_rng, N)
  // split(k, N)[i] does not depend on N (the partitionable layout), so each env keeps the chain.
  void seed(uint64_t s) override;
  void seed_from_os() override;

 private:
  Key next_key();  // split(_rng, N)[i] of the chain's next element

  ClassicParams params_;
  int env_index_;
  Key chain_;
  std::optional<Key> pending_reset_;  // craftax's in-step reset key of the step that ended
  ClassicState state_;
};

void register_classic_tasks(TaskRegistry& registry);

}  // namespace envhive::craftax
