// One official Procgen engine instance: libenv_make(num=1) with num_threads=0, so the engine has no
// threads of its own and every call runs its game synchronously on the calling thread (a pool
// thread, without the GIL). It is exactly procgen.ProcgenGym3Env(num=1, num_threads=0, ...) made
// with the same options: the options list below is the one procgen/env.py builds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libenv_abi.h"

namespace envhive::procgen {

struct EngineLibrary;

inline constexpr int kFrameSide = 64, kRenderSide = 512;
inline constexpr size_t kFrameBytes = size_t{kFrameSide} * kFrameSide * 3;
inline constexpr size_t kRenderBytes = size_t{kRenderSide} * kRenderSide * 3;
inline constexpr int32_t kActions = 15;        // procgen's combos (env.py get_combos)
inline constexpr int32_t kForceResetAction = -1;  // Game::step: a forced end of the level

// The values procgen/env.py passes for one env (distribution_mode already resolved: exploration
// is hard with the game's level).
struct EngineOptions {
  std::string env_name;
  int32_t distribution_mode = 1;
  int32_t num_levels = 0, start_level = 0, debug_mode = 0;
  bool use_sequential_levels = false, paint_vel_info = false, use_generated_assets = false,
       use_monochrome_assets = false, restrict_themes = false, use_backgrounds = true, center_agent = true;
};

class EngineInstance {
 public:
  // Makes the instance (the engine draws its first level and its first frame here). `render`: the
  // engine's render_human, which adds the 512x512 "rgb" info drawn by render().
  EngineInstance(const EngineOptions& options, int32_t rand_seed, bool render);
  ~EngineInstance();
  EngineInstance(const EngineInstance&) = delete;
  EngineInstance& operator=(const EngineInstance&) = delete;

  // One step (libenv_act): kForceResetAction ends the level.
  void act(int32_t action);
  // The 512x512 frame of the current state (libenv_observe); needs render=true.
  const uint8_t* render();

  const uint8_t* frame() const { return frame_; }  // 64x64x3, what the engine wrote last
  float reward() const { return reward_; }
  bool first() const { return first_ != 0; }
  int32_t level_seed() const { return level_seed_; }
  int32_t prev_level_seed() const { return prev_level_seed_; }
  uint8_t prev_level_complete() const { return prev_level_complete_; }

 private:
  const EngineLibrary* lib_;
  void* handle_ = nullptr;
  alignas(64) uint8_t frame_[kFrameBytes];
  float reward_ = 0.0f;
  uint8_t first_ = 0;
  uint8_t prev_level_complete_ = 0;
  int32_t level_seed_ = 0, prev_level_seed_ = 0;
  int32_t action_ = 0;
  std::unique_ptr<uint8_t[]> render_frame_;  // only with render=true
  // The option values and pointer arrays the engine holds on to for its life.
  std::vector<std::string> strings_;
  std::vector<int32_t> ints_;
  std::vector<uint8_t> bools_;
  std::vector<void*> ob_ptrs_, info_ptrs_, ac_ptrs_;
  abi::Buffers buffers_{};
};

}  // namespace envhive::procgen
