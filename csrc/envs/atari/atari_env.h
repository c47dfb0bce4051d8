// One Atari 2600 game on ALE with EnvPool's preprocessing (the DQN "NoFrameskip-v4" recipe):
// frame skip with the last two frames max-pooled, gray or RGB, resized as cv::resize does
// (resize.h), a channel-first frame stack, no-op and FIRE resets, episodic life, reward clipping.
//
// Semantics follow EnvPool 1.2.5's atari_env.h so that an EnvPool user gets the same data:
// - step: the action repeats for frame_skip frames, stopping early only at game over; the last
//   two frames are captured and max-pooled when all frames ran (a game over on the second-last
//   frame keeps that frame alone, earlier game overs keep the previous observation's frame);
// - reset: ALE's reset_game, then uniform{1..noop_max} NOOP frames (minus one when FIRE follows),
//   then one FIRE frame when use_fire_reset and the game has FIRE; the stack is filled with the
//   first frame;
// - episodic_life: losing a life (lives > 0 left) terminates the episode; the next reset then
//   continues the same game (no reset_game, the stack keeps its frames) unless the game was over
//   or the time limit hit.
// Differences: frame_skip=1 observes the last frame instead of max-pooling it with the previous
// observation; an explicit reset after anything but a life loss restarts the game. The time
// limit (the pool's) counts steps of the whole game, across lives (reset_continued_game).
#pragma once

#include <ale_interface.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../core/task.h"
#include "palette.h"
#include "resize.h"

namespace envhive::atari {

// What registration learns about a ROM once (without emulating it).
struct RomInfo {
  std::string task_id;  // envhive's id, e.g. "MontezumaRevenge-v5"
  std::string game;     // ALE's ROM id, e.g. "montezuma_revenge"
  std::string path;  // the .bin file
  std::vector<int> minimal_actions, modes, difficulties;
  int default_mode = 0;
};

// A resolved, validated task config.
struct AtariConfig {
  int frame_skip = 4, img_height = 84, img_width = 84, stack_num = 4, noop_max = 30;
  int mode = -1, difficulty = -1;
  bool gray_scale = true, episodic_life = false, zero_discount_on_life_loss = false, reward_clip = false;
  bool full_action_space = false, use_fire_reset = true, use_inter_area_resize = true, ram = false;
  double repeat_action_probability = 0.0;
  int64_t max_episode_steps = 27000;

  int channels() const { return gray_scale ? 1 : 3; }
};

inline constexpr int kRamBytes = 128;
// ALE's screen (every supported ROM), which render() draws.
inline constexpr int kScreenHeight = 210, kScreenWidth = 160;

using RomPtr = std::shared_ptr<const RomInfo>;

// The task kwargs as an AtariConfig, validated (std::invalid_argument naming the task); atari.cc.
AtariConfig resolve_config(const Config& c, const RomInfo& rom);

class AtariEnv final : public Env {
 public:
  // The task's declarations for one ROM (atari.cc).
  static std::vector<ConfigField> config(const RomPtr& rom);
  static Spaces spaces(const Config& c, const RomPtr& rom);
  AtariEnv(const Config& c, int /*env_id*/, const RomPtr& rom) : AtariEnv(resolve_config(c, *rom), *rom) {}
  AtariEnv(const AtariConfig& cfg, const RomInfo& rom);

  void reset() override;
  bool reset_continued_game() const override { return continued_; }
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  // The last frame ALE emulated, in colour (getScreenRGB's pixels: Gymnasium's ALE rgb_array), not
  // the observation (max-pooled, resized, stacked).
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  void capture(bool max_pool);                 // the current screen -> raw_ (planes), or max into it
  void push_frame(const uint8_t* planes, bool fill_stack);

  AtariConfig cfg_;
  std::unique_ptr<ale::ALEInterface> ale_;
  std::vector<ale::Action> actions_;
  bool fire_reset_ = false;
  int raw_h_ = 0, raw_w_ = 0;
  size_t raw_plane_ = 0, frame_bytes_ = 0, plane_bytes_ = 0;
  PaletteLut lut_[3];                          // palette index -> gray, or -> R, G, B
  std::vector<uint8_t> raw_;                   // the captured (max-pooled) frame, planar
  std::vector<uint8_t> stack_;                 // stack_num frames, a ring; head_ is the oldest
  int head_ = 0;
  Resizer resizer_;

  // Episode state, as the last reset/step left it.
  int lives_ = 0;
  bool game_over_ = false, life_lost_ = false;
  int64_t steps_ = 0;     // steps in this game (the pool's elapsed_step)
  bool continued_ = false;  // the last reset continued the game after a lost life
  double raw_reward_ = 0.0;
};

}  // namespace envhive::atari
