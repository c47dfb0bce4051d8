// A Procgen game on envhive's pool: one official engine instance per env (engine_instance.h).
//
// Seeds: env i of a pool seeded s is the engine made with rand_seed = s + i (procgen's
// ProcgenGym3Env(num=1, rand_seed=s + i)); a reset with a seed makes a fresh instance, so every
// later level follows from that seed exactly as upstream's.
//
// Episode ends: the engine starts the next level inside the step that ends one (Game::step resets
// before it draws, so the terminal frame is never drawn). Upstream's gym env (procgen-<game>-v0,
// gym3's ToGymEnv) reports that step with the frame before it and the next level's first frame at
// the following reset(); envhive does the same in every autoreset mode:
//   NEXT_STEP  the ending step: the frame before it; the next step (its action ignored): the new
//              level's first frame, reward 0 -- nothing is stepped, the engine is already there.
//   SAME_STEP  the ending step: final_obs = the frame before it, obs = the new level's first frame.
//   DISABLED   the ending step: the frame before it; reset() then shows the new level's first frame.
// A reset while a level is under way (the pool's max_episode_steps, a reset() of a running env)
// ends it the engine's own way: a step with action -1 (Game::step's forced reset) starts the next
// level. Infos are the engine's after each call (level_seed is the new level's after an end).
// terminated / truncated: the engine's `done`, split by its own clock: an end at the game's timeout
// without a completed level is a truncation (a death on that very step reads the same: the engine
// does not tell them apart), every other end a termination.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../core/env.h"
#include "engine_instance.h"
#include "games.h"

namespace envhive::procgen {

// What one registration fixes: the game and the default distribution mode of its id.
struct TaskArgs {
  const Game* game;
  Mode default_mode;
};

// The engine options of a config, checked (std::invalid_argument for a value procgen would abort
// the process on, or refuse in Python); the engine's clock for them in `timeout`.
EngineOptions engine_options(const Config& config, const Game& game, int32_t* timeout = nullptr);

class ProcgenEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const TaskArgs& args);
  static Spaces spaces(const Config& config, const TaskArgs& args);
  ProcgenEnv(const Config& config, int env_id, const TaskArgs& args);

  void seed(uint64_t s) override;
  void seed_from_os() override;
  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;
  void enable_rendering() override { render_ = true; }

 private:
  EngineOptions options_;
  int32_t timeout_ = 0;       // the engine's own clock for this game and mode
  bool channel_first_ = false;
  bool render_ = false;
  int32_t rand_seed_ = 0;
  bool stale_ = true;            // the next reset makes a fresh instance from rand_seed_
  bool level_pending_ = false;   // the engine is at a level's first frame no reset has shown yet
  bool terminal_pending_ = false;  // the last step ended an episode: its observation is prev_frame_
  int32_t level_steps_ = 0;      // steps into the engine's current level (its cur_time)
  std::unique_ptr<EngineInstance> engine_;
  alignas(64) uint8_t prev_frame_[kFrameBytes];
};

}  // namespace envhive::procgen
