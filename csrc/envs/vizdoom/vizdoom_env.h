// ViZDoom under EnvPool 1.2.5's names and kwargs: one DoomGame (the `vizdoom` wheel's C++ client,
// doom_client.h, driving its own engine process) per env, stepped on the pool's threads without the GIL.
//
// What EnvPool defines on top of ViZDoom, done the same way:
//  - the observation: each screen channel (ViZDoom's planar buffer) resized to img_height x img_width
//    (cv2.resize, INTER_AREA or INTER_LINEAR, bit for bit: atari/resize.h), the last stack_num
//    frames on the first axis, oldest first; a reset fills the stack with its frame;
//  - the reward: a sum over game variables of (change x reward_config's positive weight, or
//    -change x its negative weight), in float32, with DAMAGECOUNT changes capped at 200, HITCOUNT
//    at 5, HEALTH's -999900 glitch ignored, HITCOUNT / DAMAGECOUNT / DEATHCOUNT counted from the
//    episode's start, plus selected_weapon_reward_config[w] while weapon w (with ammo) has been
//    held weapon_duration steps; the scenario's own reward is not used (as in EnvPool);
//  - a step: the action (one value per available button, or a row of the combined action set)
//    held for frame_skip tics; terminated when the episode finished (or, with episodic_life, the
//    player died); the engine's episode timeout is (max_episode_steps + 1) * frame_skip tics;
//  - infos: 16 game variables (game_variables.h), float64.
// Seeds: env i of a pool seeded s runs DoomGame.setSeed(s + i) before its first episode; a reset
// with a seed calls setSeed before newEpisode.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../../core/env.h"
#include "../atari/resize.h"
#include "action_set.h"
#include "doom_client.h"

namespace envhive::vizdoom {

struct TaskArgs {
  std::string scenario;   // "basic", "D1_basic", ...; empty: VizdoomCustom (cfg_path is required)
  std::string game_args;  // the default of game_args
};

class VizdoomEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const TaskArgs& args);
  static Spaces spaces(const Config& config, const TaskArgs& args);
  VizdoomEnv(const Config& config, int env_id, const TaskArgs& args);
  ~VizdoomEnv() override;

  void seed(uint64_t s) override;
  void seed_from_os() override;
  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  bool reset_continued_game() const override { return continued_; }
  void enable_rendering() override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  float observe(bool is_reset);  // the new state into the stack and variables; returns the reward

  std::unique_ptr<DoomGame> game_;
  int env_id_;
  int frame_skip_, stack_num_, img_h_, img_w_, channels_ = 1, weapon_duration_;
  bool episodic_life_, combined_;
  std::string lmp_prefix_;
  int64_t episodes_ = 0;
  uint32_t seed_ = 0;
  bool seed_pending_ = true, started_ = false, ended_ = false, continued_ = false;
  std::vector<std::vector<double>> action_set_;
  size_t buttons_ = 0;
  std::vector<int> variables_;           // the game variables the state carries, in its order
  std::vector<double> pos_, neg_;        // reward weights per variable (float32 values)
  std::array<double, 10> weapon_reward_{};
  int hit_ = -1, damage_ = -1, death_ = -1, health_ = -1, weapon_ = -1, weapon_ammo_ = -1;
  std::vector<int> info_slot_;           // info field -> index in variables_ (-1: none)
  std::vector<double> now_, last_;       // the variables (corrected) now and one step ago
  double hit0_ = 0, damage0_ = 0, death0_ = 0;  // their values at the episode's start
  int held_weapon_ = -1, held_steps_ = 0;
  atari::Resizer resize_;
  std::deque<std::vector<uint8_t>> stack_;  // stack_num frames of channels x H x W
  // render(): the latest screen (channels planes, kept only when the pool renders), resized
  bool rendering_ = false, inter_area_ = true;
  int render_h_ = 0, render_w_ = 0;
  std::vector<uint8_t> screen_, planes_;
  atari::Resizer render_resize_;
};

}  // namespace envhive::vizdoom
