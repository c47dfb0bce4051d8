#include "classic_env.h"

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace envhive::craftax {

Spaces ClassicEnv::spaces(const Config&, ClassicObs obs) {
  Spaces sp{obs == ClassicObs::kPixels
                ? SpaceSpec::box(DType::kFloat32,
                                 {kClassicPixelRows * kClassicPixelBlock, kClassicPixelCols * kClassicPixelBlock, 3},
                                 {0.0}, {1.0})
                : SpaceSpec::box(DType::kFloat32, {kClassicSymbolicSize}, {0.0}, {1.0}),
            SpaceSpec::discrete(kClassicActions),
            {{"achievements", DType::kUInt8, {kClassicAchievements}}, {"timestep", DType::kInt32, {}}}};
  sp.render = {kClassicPixelRows * kClassicRenderBlock, kClassicPixelCols * kClassicRenderBlock, 10};
  return sp;
}

ClassicEnv::ClassicEnv(const Config&, int env_id, ClassicObs obs)
    : obs_(obs),
      textures_(obs == ClassicObs::kPixels ? classic_textures(kClassicPixelBlock) : nullptr),
      env_index_(env_id),
      chain_(key_from_seed(0)) {}

// The pool seeds env i with seed + i; the chain of every env starts from PRNGKey(seed).
void ClassicEnv::seed(uint64_t s) {
  const uint64_t base = s - static_cast<uint64_t>(env_index_);
  if (base > 0xFFFFFFFFull)
    throw std::invalid_argument("Craftax seeds are jax.random.PRNGKey seeds below 2**32, got " + std::to_string(base));
  chain_ = key_from_seed(base);
  pending_reset_.reset();
}

void ClassicEnv::seed_from_os() {
  std::random_device rd;
  seed(rd());
}

Key ClassicEnv::next_key() {
  const Key sub = split_at(chain_, 1);
  chain_ = split_at(chain_, 0);
  return split_at(sub, static_cast<uint64_t>(env_index_));
}

void ClassicEnv::reset() {
  fresh_ = true;
  if (pending_reset_) {
    state_ = classic_reset(*pending_reset_, params_, /*in_step=*/true);
    pending_reset_.reset();
  } else {
    state_ = classic_reset(next_key(), params_);
  }
}

StepResult ClassicEnv::step(const void* action) {
  const int64_t a = *static_cast<const int64_t*>(action);
  if (a < 0 || a >= kClassicActions)
    throw std::invalid_argument("Craftax-Classic: action " + std::to_string(a) + " is not in [0, 17)");
  const Key key = next_key();
  fresh_ = false;
  bool done = false;
  // craftax's auto-resetting step: split(key) into the step's and the reset's keys.
  const float reward = classic_step(split_at(key, 0), state_, static_cast<int32_t>(a), params_, done);
  if (!done) return {reward, false, false};
  pending_reset_ = split_at(key, 1);  // the pool's reset (same step or next) starts that episode
  const bool out_of_time = state_.timestep >= params_.max_timesteps && state_.health > 0 &&
                           classic::read(state_.map, params_, state_.player) != kLava;
  return {reward, !out_of_time, out_of_time};
}

float ClassicEnv::observed_light() const {
  return state_.timestep == 0 ? state_.light_level : classic::light_level_at(state_.timestep, params_, true);
}

void ClassicEnv::write_obs(void* dst) const {
  if (obs_ == ClassicObs::kSymbolic) {
    classic_symbolic_obs(state_, params_, static_cast<float*>(dst));
    return;
  }
  thread_local PixelScratch scratch;
  classic_pixels(state_, params_, *textures_, observed_light(), fresh_ ? kClassicResetKernel : kClassicStepKernel, true,
                 static_cast<float*>(dst), scratch);
}

void ClassicEnv::render(uint8_t* rgb, RenderSlot&) {
  const auto textures = classic_textures(kClassicRenderBlock);
  thread_local PixelScratch scratch;
  thread_local std::vector<float> frame;
  frame.resize(static_cast<size_t>(kClassicPixelRows * kClassicRenderBlock) * kClassicPixelCols * kClassicRenderBlock * 3);
  classic_pixels(state_, params_, *textures, observed_light(), kClassicRenderKernel, false, frame.data(), scratch);
  for (size_t i = 0; i < frame.size(); ++i) rgb[i] = static_cast<uint8_t>(frame[i]);  // numpy's astype(uint8)
}

void ClassicEnv::write_info(void* const* dst) const {
  std::memcpy(dst[0], state_.achievements.data(), kClassicAchievements);
  *static_cast<int32_t*>(dst[1]) = state_.timestep;
}

void register_classic_tasks(TaskRegistry& registry) {
  register_task<ClassicEnv>(
      registry,
      {.id = "Craftax-Classic-Symbolic-v1",
       .family = "craftax",
       .doc = "Craftax-Classic (craftax 1.6.1): Crafter's game in JAX's rules, 22 achievements, its 1345-float "
              "symbolic observation.",
       .max_episode_steps = 0},
      ClassicObs::kSymbolic);
  register_task<ClassicEnv>(
      registry,
      {.id = "Craftax-Classic-Pixels-v1",
       .family = "craftax",
       .doc = "Craftax-Classic (craftax 1.6.1) with its 63x63x3 pixel observation (craftax's textures).",
       .max_episode_steps = 0},
      ClassicObs::kPixels);
}

}  // namespace envhive::craftax
