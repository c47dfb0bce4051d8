#include "atari_env.h"

#include <cstdlib>

namespace envhive::atari {

AtariEnv::AtariEnv(const AtariConfig& cfg, const RomInfo& rom) : cfg_(cfg) {
  ale_ = std::make_unique<ale::ALEInterface>();
  ale_->setFloat("repeat_action_probability", static_cast<float>(cfg.repeat_action_probability));
  ale_->setInt("random_seed", 0);  // reseeded from rng() at every reset
  ale_->loadROM(rom.path);
  if (cfg.mode >= 0) ale_->setMode(static_cast<ale::game_mode_t>(cfg.mode));
  if (cfg.difficulty >= 0) ale_->setDifficulty(static_cast<ale::difficulty_t>(cfg.difficulty));
  actions_ = cfg.full_action_space ? ale_->getLegalActionSet() : ale_->getMinimalActionSet();
  if (cfg.use_fire_reset)
    fire_reset_ = std::find(actions_.begin(), actions_.end(), ale::PLAYER_A_FIRE) != actions_.end();

  const ale::ALEScreen& screen = ale_->getScreen();
  raw_h_ = static_cast<int>(screen.height());
  raw_w_ = static_cast<int>(screen.width());
  raw_plane_ = static_cast<size_t>(raw_h_) * raw_w_;

  // Palette lookups, taken from ALE's own conversions so they match getScreenGrayscale/RGB.
  // Screen values are even palette indices; the grayscale table reads index + 1, so 255 is skipped.
  auto& palette = ale_->theOSystem->colourPalette();
  const Simd simd = atari_simd(std::getenv("ENVHIVE_ATARI_SIMD"));
  std::array<uint8_t, 256> index{};
  for (int i = 0; i < 256; ++i) index[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  if (cfg.gray_scale) {
    std::array<uint8_t, 256> gray{};
    palette.applyPaletteGrayscale(gray.data(), index.data(), 255);
    lut_[0] = PaletteLut(gray, simd);
  } else {
    std::array<uint8_t, 768> rgb{};
    palette.applyPaletteRGB(rgb.data(), index.data(), 256);
    for (size_t c = 0; c < 3; ++c) {
      std::array<uint8_t, 256> channel{};
      for (size_t i = 0; i < 256; ++i) channel[i] = rgb[3 * i + c];
      lut_[c] = PaletteLut(channel, simd);
    }
  }

  const int c = cfg.channels();
  raw_.assign(raw_plane_ * static_cast<size_t>(c), 0);
  plane_bytes_ = static_cast<size_t>(cfg.img_height) * cfg.img_width;
  frame_bytes_ = plane_bytes_ * static_cast<size_t>(c);
  stack_.assign(frame_bytes_ * static_cast<size_t>(cfg.stack_num), 0);
  resizer_ = Resizer(raw_h_, raw_w_, cfg.img_height, cfg.img_width, cfg.use_inter_area_resize);
}

void AtariEnv::capture(bool max_pool) {
  const uint8_t* screen = ale_->getScreen().getArray();
  uint8_t* out = raw_.data();
  for (int ch = 0; ch < cfg_.channels(); ++ch) {
    uint8_t* plane = out + static_cast<size_t>(ch) * raw_plane_;
    if (max_pool)
      lut_[ch].apply_max(screen, plane, raw_plane_);
    else
      lut_[ch].apply(screen, plane, raw_plane_);
  }
}

void AtariEnv::push_frame(const uint8_t* planes, bool fill_stack) {
  const int n = cfg_.stack_num;
  uint8_t* frame = stack_.data() + static_cast<size_t>(head_) * frame_bytes_;
  for (int ch = 0; ch < cfg_.channels(); ++ch)
    resizer_.run(planes + static_cast<size_t>(ch) * raw_plane_, frame + static_cast<size_t>(ch) * plane_bytes_);
  if (fill_stack)
    for (int i = 0; i < n; ++i)
      if (i != head_) std::memcpy(stack_.data() + static_cast<size_t>(i) * frame_bytes_, frame, frame_bytes_);
  head_ = (head_ + 1) % n;  // the new frame is now the newest; head_ the oldest
}

void AtariEnv::reset() {
  // Sticky actions draw from ALE's own generator: seed it from this env's stream, so episodes
  // are a function of the env's seed.
  ale_->environment->getEnvironmentRNG().seed(static_cast<uint32_t>(rng().next_u64() >> 32));
  const bool time_up = cfg_.max_episode_steps > 0 && steps_ >= cfg_.max_episode_steps;
  const bool next_life = cfg_.episodic_life && life_lost_ && !game_over_ && !time_up;
  bool fill = false;
  if (!next_life) {
    ale_->reset_game();
    fill = true;
  }
  int noops = cfg_.noop_max > 0 ? 1 + static_cast<int>(rng().next_u64() % static_cast<uint64_t>(cfg_.noop_max)) : 0;
  if (fire_reset_) --noops;
  for (; noops > 0; --noops) {
    ale_->act(ale::PLAYER_A_NOOP);
    if (ale_->game_over()) {
      ale_->reset_game();
      fill = true;
    }
  }
  if (fire_reset_) ale_->act(ale::PLAYER_A_FIRE);
  capture(false);
  push_frame(raw_.data(), fill);
  lives_ = ale_->lives();
  game_over_ = life_lost_ = false;
  continued_ = next_life;
  if (!next_life) steps_ = 0;  // the time limit spans the whole game (EnvPool's)
  raw_reward_ = 0.0;
}

StepResult AtariEnv::step(const void* action) {
  const ale::Action a = actions_[static_cast<size_t>(*static_cast<const int64_t*>(action))];
  const int skip_total = cfg_.frame_skip;
  ale::reward_t reward = 0;
  bool over = false;
  int skip = skip_total;
  for (; skip > 0 && !over; --skip) {
    reward += ale_->act(a);
    over = ale_->game_over();
    // The last two frames, max-pooled: the last one is pooled into the second-last as it is
    // captured (the loop always completes once the last frame ran). With one frame per step
    // that frame alone is kept.
    if (skip <= 2) capture(skip == 1 && skip_total > 1);
  }
  push_frame(raw_.data(), false);
  ++steps_;
  const int lives = ale_->lives();
  life_lost_ = lives < lives_ && lives > 0;
  lives_ = lives;
  game_over_ = over;
  raw_reward_ = static_cast<double>(reward);
  StepResult r;
  r.terminated = over || (cfg_.episodic_life && life_lost_);
  r.reward = cfg_.reward_clip ? static_cast<double>((reward > 0) - (reward < 0)) : raw_reward_;
  return r;
}

void AtariEnv::write_obs(void* dst) const {
  auto* out = static_cast<uint8_t*>(dst);
  const int n = cfg_.stack_num;
  for (int i = 0; i < n; ++i)
    std::memcpy(out + static_cast<size_t>(i) * frame_bytes_,
                stack_.data() + static_cast<size_t>((head_ + i) % n) * frame_bytes_, frame_bytes_);
}

void AtariEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) {
  const ale::ALEScreen& screen = ale_->getScreen();
  if (static_cast<int>(screen.height()) != kScreenHeight || static_cast<int>(screen.width()) != kScreenWidth)
    throw std::runtime_error("this ROM's screen is " + std::to_string(screen.height()) + " x " +
                             std::to_string(screen.width()) + ", not the " + std::to_string(kScreenHeight) + " x " +
                             std::to_string(kScreenWidth) + " envhive renders");
  ale_->theOSystem->colourPalette().applyPaletteRGB(rgb, screen.getArray(), screen.arraySize());
}

void AtariEnv::write_info(void* const* dst) const {
  *static_cast<int32_t*>(dst[0]) = lives_;
  *static_cast<double*>(dst[1]) = raw_reward_;
  *static_cast<bool*>(dst[2]) = game_over_;
  int next = 3;
  if (cfg_.zero_discount_on_life_loss)
    *static_cast<float*>(dst[next++]) = (life_lost_ || game_over_) ? 0.f : 1.f;
  if (cfg_.ram) std::memcpy(dst[next], ale_->getRAM().array(), kRamBytes);
}

}  // namespace envhive::atari
