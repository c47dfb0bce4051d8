// Craftax-Classic-Symbolic-v1 and Craftax-Classic-Pixels-v1: craftax 1.6.1's Craftax-Classic (its
// auto-resetting step, the symbolic or pixel observation, render()) on envhive's pool.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "../../core/task.h"
#include "classic_pixels.h"
#include "classic_state.h"

namespace envhive::craftax {

enum class ClassicObs { kSymbolic, kPixels };

class ClassicEnv final : public Env {
 public:
  static std::vector<ConfigField> config(ClassicObs) { return {}; }
  static Spaces spaces(const Config&, ClassicObs obs);
  ClassicEnv(const Config& c, int env_id, ClassicObs obs);

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  // craftax's play-window renderer (64 pixels a block) of the current state, as uint8.
  void render(uint8_t* rgb, RenderSlot& slot) override;

  // The keys follow craftax's vmapped loop for env i of N, from PRNGKey(seed) (docs/envs.md):
  //   rng, _rng = split(rng); reset keys = split(_rng, N)   (then, each step)
  //   rng, _rng = split(rng); step keys = split(_rng, N)
  // split(k, N)[i] does not depend on N (the partitionable layout), so each env keeps the chain.
  void seed(uint64_t s) override;
  void seed_from_os() override;

 private:
  Key next_key();  // split(_rng, N)[i] of the chain's next element
  // The light level the observation's renderer uses (XLA recomputes it there, fused).
  float observed_light() const;

  ClassicObs obs_;
  std::shared_ptr<const ClassicTextures> textures_;  // pixels only
  ClassicParams params_;
  int env_index_;
  Key chain_;
  std::optional<Key> pending_reset_;  // craftax's in-step reset key of the step that ended
  ClassicState state_;
  bool fresh_ = true;  // the state is a reset's (its observation is the reset program's)
};

void register_classic_tasks(TaskRegistry& registry);

}  // namespace envhive::craftax
