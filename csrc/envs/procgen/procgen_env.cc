#include "procgen_env.h"

#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "engine_library.h"

namespace envhive::procgen {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

int32_t int32_field(const Config& c, const char* name, int64_t low, int64_t high) {
  const int64_t v = c.integer(name);
  if (v < low || v > high)
    throw std::invalid_argument(std::string(name) + " must be in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "], got " + std::to_string(v));
  return static_cast<int32_t>(v);
}

}  // namespace

EngineOptions engine_options(const Config& c, const Game& game, int32_t* timeout) {
  const Mode mode = mode_from_name(c.text("distribution_mode"));
  if (!supports(game, mode)) {
    std::string allowed;
    for (Mode m : game.modes) allowed += std::string(allowed.empty() ? "" : ", ") + "'" + mode_name(m) + "'";
    throw std::invalid_argument(std::string(game.name) + " has no '" + mode_name(mode) +
                                "' distribution_mode (procgen's: " + allowed + ")");
  }
  EngineOptions o;
  o.env_name = game.name;
  o.num_levels = int32_field(c, "num_levels", 0, kInt32Max);
  o.start_level = int32_field(c, "start_level", 0, kInt32Max);
  o.debug_mode = int32_field(c, "debug_mode", -kInt32Max, kInt32Max);
  if (o.num_levels > 0 && int64_t{o.start_level} + o.num_levels > kInt32Max)
    throw std::invalid_argument("start_level + num_levels must be at most 2**31 - 1 (procgen's level seeds are int32), got " +
                                std::to_string(int64_t{o.start_level} + o.num_levels));
  o.distribution_mode = static_cast<int32_t>(mode);
  if (mode == Mode::kExploration) {  // procgen/env.py: hard mode on the game's one exploration level
    if (o.num_levels != 0 || o.start_level != 0)
      throw std::invalid_argument("distribution_mode 'exploration' sets num_levels and start_level itself (leave them at 0)");
    o.distribution_mode = static_cast<int32_t>(Mode::kHard);
    o.num_levels = 1;
    o.start_level = game.exploration_level;
  }
  o.use_sequential_levels = c.flag("use_sequential_levels");
  o.paint_vel_info = c.flag("paint_vel_info");
  o.use_generated_assets = c.flag("use_generated_assets");
  o.use_monochrome_assets = c.flag("use_monochrome_assets");
  o.restrict_themes = c.flag("restrict_themes");
  o.use_backgrounds = c.flag("use_backgrounds");
  o.center_agent = c.flag("center_agent");
  if (timeout) *timeout = timeout_of(game, mode);
  return o;
}

std::vector<ConfigField> ProcgenEnv::config(const TaskArgs& args) {
  return {
      {"distribution_mode", std::string(mode_name(args.default_mode)),
       "Level distribution: 'easy', 'hard', 'extreme', 'memory' or 'exploration' (the game's one exploration "
       "level), as the game allows."},
      {"num_levels", int64_t{0}, "Distinct levels to draw from (0: unlimited)."},
      {"start_level", int64_t{0}, "The first level seed of the num_levels levels."},
      {"use_sequential_levels", false, "A completed level continues into the next seed (seed + 997), same episode."},
      {"paint_vel_info", false, "Paint the agent's velocity into the top-left corner."},
      {"use_generated_assets", false, "Draw procedurally generated assets instead of the sprites."},
      {"use_monochrome_assets", false, "Draw monochrome rectangles instead of the sprites."},
      {"restrict_themes", false, "Use one theme per asset."},
      {"use_backgrounds", true, "Draw the background images."},
      {"center_agent", true, "Center the view on the agent (games with a moving camera)."},
      {"debug_mode", int64_t{0}, "procgen's debug_mode bits (coinrun's level generator reads them)."},
      {"channel_first", false, "Observations (3, 64, 64) instead of (64, 64, 3) (EnvPool's default layout)."},
  };
}

Spaces ProcgenEnv::spaces(const Config& c, const TaskArgs& args) {
  engine_options(c, *args.game);  // a value procgen refuses fails here, before any env is made
  const std::vector<int64_t> shape =
      c.flag("channel_first") ? std::vector<int64_t>{3, kFrameSide, kFrameSide} : std::vector<int64_t>{kFrameSide, kFrameSide, 3};
  Spaces s{SpaceSpec::box(DType::kUInt8, shape, {0.0}, {255.0}),
           SpaceSpec::discrete(kActions),
           {{"level_seed", DType::kInt32, {}}, {"prev_level_seed", DType::kInt32, {}}, {"prev_level_complete", DType::kUInt8, {}}}};
  s.render = {.height = kRenderSide, .width = kRenderSide, .fps = 15, .threads = 0};
  return s;
}

ProcgenEnv::ProcgenEnv(const Config& c, int /*env_id*/, const TaskArgs& args)
    : options_(engine_options(c, *args.game)), channel_first_(c.flag("channel_first")) {
  timeout_ = timeout_of(*args.game, mode_from_name(c.text("distribution_mode")));
  engine_library();  // located (and fetched when missing) while the pool is made, not at its first reset
  std::memset(prev_frame_, 0, sizeof(prev_frame_));
}

void ProcgenEnv::seed(uint64_t s) {
  if (s > static_cast<uint64_t>(kInt32Max))
    throw std::invalid_argument("procgen seeds are in [0, 2**31 - 1] (its rand_seed is an int32), got " + std::to_string(s));
  rand_seed_ = static_cast<int32_t>(s);
  stale_ = true;
}

void ProcgenEnv::seed_from_os() {
  // procgen's create_random_seed: a system random int in [0, 2**31 - 1].
  std::random_device device;
  rand_seed_ = static_cast<int32_t>(std::uniform_int_distribution<int64_t>(0, kInt32Max)(device));
  stale_ = true;
}

void ProcgenEnv::reset() {
  if (stale_ || !engine_) {
    engine_.reset();  // the old instance goes first: one engine per env at a time
    engine_ = std::make_unique<EngineInstance>(options_, rand_seed_, render_);
    stale_ = false;
  } else if (!level_pending_) {
    engine_->act(kForceResetAction);
  }
  level_pending_ = false;
  terminal_pending_ = false;
  level_steps_ = 0;
}

StepResult ProcgenEnv::step(const void* action) {
  const int64_t a = *static_cast<const int64_t*>(action);
  if (a < 0 || a >= kActions) throw std::invalid_argument("procgen actions are in [0, 14], got " + std::to_string(a));
  std::memcpy(prev_frame_, engine_->frame(), kFrameBytes);
  terminal_pending_ = false;
  level_pending_ = false;
  engine_->act(static_cast<int32_t>(a));
  ++level_steps_;
  StepResult r{static_cast<double>(engine_->reward()), false, false};
  const bool completed = engine_->prev_level_complete() != 0;
  if (engine_->first()) {
    r.truncated = level_steps_ >= timeout_ && !completed;
    r.terminated = !r.truncated;
    terminal_pending_ = level_pending_ = true;
  }
  if (engine_->first() || completed) level_steps_ = 0;  // the engine started a level (cur_time = 0)
  return r;
}

void ProcgenEnv::write_obs(void* dst) const {
  const uint8_t* src = terminal_pending_ ? prev_frame_ : engine_->frame();
  auto* out = static_cast<uint8_t*>(dst);
  if (!channel_first_) {
    std::memcpy(out, src, kFrameBytes);
    return;
  }
  constexpr size_t plane = size_t{kFrameSide} * kFrameSide;
  for (size_t p = 0; p < plane; ++p) {
    out[p] = src[3 * p];
    out[plane + p] = src[3 * p + 1];
    out[2 * plane + p] = src[3 * p + 2];
  }
}

void ProcgenEnv::write_info(void* const* dst) const {
  *static_cast<int32_t*>(dst[0]) = engine_->level_seed();
  *static_cast<int32_t*>(dst[1]) = engine_->prev_level_seed();
  *static_cast<uint8_t*>(dst[2]) = engine_->prev_level_complete();
}

void ProcgenEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) {
  if (!engine_) throw std::logic_error("procgen: render() before the env's first reset");
  std::memcpy(rgb, engine_->render(), kRenderBytes);
}

}  // namespace envhive::procgen
