#include "vizdoom_env.h"

#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

#include "doom_files.h"
#include "game_variables.h"

namespace envhive::vizdoom {

namespace {

constexpr int64_t kMaxSide = 4096, kMaxStack = 64, kMaxFrameSkip = 1 << 16;

int int_field(const Config& c, const char* name, int64_t low, int64_t high) {
  const int64_t v = c.integer(name);
  if (v < low || v > high)
    throw std::invalid_argument(std::string(name) + " must be in [" + std::to_string(low) + ", " + std::to_string(high) +
                                "], got " + std::to_string(v));
  return static_cast<int>(v);
}

// The scenario's cfg and wad: the kwargs when given, else the id's own files.
ScenarioFiles files_of(const Config& c, const TaskArgs& a) {
  ScenarioFiles f = a.scenario.empty() ? ScenarioFiles{} : scenario_files(a.scenario);
  if (!c.text("cfg_path").empty()) f.cfg = c.text("cfg_path");
  if (!c.text("wad_path").empty()) f.wad = c.text("wad_path");
  if (f.cfg.empty()) throw std::invalid_argument("VizdoomCustom-v1 needs cfg_path (a ViZDoom .cfg file)");
  return f;
}

// What a scenario's cfg declares (read by ViZDoom's own loader, no engine started), per cfg path.
struct Declared {
  std::vector<int> buttons;
  int channels, height, width;
};
Declared declared(const std::string& cfg) {
  static std::mutex mu;
  static std::map<std::string, Declared> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(cfg); it != cache.end()) return it->second;
  DoomGame probe;
  if (!probe.loadConfig(cfg)) throw std::invalid_argument("vizdoom: cannot load the config " + cfg);
  Declared d{{}, static_cast<int>(probe.getScreenChannels()), static_cast<int>(probe.getScreenHeight()),
             static_cast<int>(probe.getScreenWidth())};
  for (vz::Button b : probe.getAvailableButtons()) d.buttons.push_back(static_cast<int>(b));
  if (d.channels < 1 || d.height < 1 || d.width < 1) throw std::invalid_argument("vizdoom: " + cfg + " declares no screen");
  return cache.emplace(cfg, d).first->second;
}

std::array<DeltaSteps, kButtonCount> delta_steps(const Config& c, const std::vector<int>& buttons) {
  std::array<DeltaSteps, kButtonCount> out{};
  for (const auto& [name, v] : c.table("delta_button_config")) {
    const int b = button_id(name);
    if (b < 38 || v.size() != 3)
      throw std::invalid_argument("delta_button_config: '" + name + "' must name a delta button (LOOK_UP_DOWN_DELTA, "
                                  "TURN_LEFT_RIGHT_DELTA, ...) with (num, low, high)");
    if (std::find(buttons.begin(), buttons.end(), b) == buttons.end())
      throw std::invalid_argument("delta_button_config: the scenario has no button " + name);
    if (!(v[0] >= 0 && v[0] <= 1024)) throw std::invalid_argument("delta_button_config: num must be in [0, 1024]");
    out[static_cast<size_t>(b)] = {static_cast<int>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
  }
  return out;
}

size_t action_set_size(const Config& c, const std::vector<int>& buttons) {
  return combined_actions(buttons, c.flag("force_speed"), delta_steps(c, buttons)).size();
}

}  // namespace

std::vector<ConfigField> VizdoomEnv::config(const TaskArgs& args) {
  // EnvPool 1.2.5's defaults (its reward weights are float32 values).
  ConfigTable rewards = {{"FRAGCOUNT", {1, -1.5}},        {"KILLCOUNT", {1, 0}},        {"DEATHCOUNT", {-0.75, 0.75}},
                         {"HITCOUNT", {0.01, -0.01}},     {"DAMAGECOUNT", {0.003, -0.003}}, {"HEALTH", {0.005, -0.003}},
                         {"ARMOR", {0.005, -0.001}},      {"WEAPON0", {0.02, -0.01}},   {"AMMO0", {0.0002, -0.0001}},
                         {"WEAPON1", {0.02, -0.01}},      {"AMMO1", {0.0002, -0.0001}}, {"WEAPON2", {0.02, -0.01}},
                         {"AMMO2", {0.0002, -0.0001}},    {"WEAPON3", {0.1, -0.05}},    {"AMMO3", {0.001, -0.0005}},
                         {"WEAPON4", {0.1, -0.05}},       {"AMMO4", {0.001, -0.0005}},  {"WEAPON5", {0.1, -0.05}},
                         {"AMMO5", {0.001, -0.0005}},     {"WEAPON6", {0.2, -0.1}},     {"AMMO6", {0.002, -0.001}},
                         {"WEAPON7", {0.2, -0.1}},        {"AMMO7", {0.002, -0.001}}};
  ConfigTable weapons = {{"0", {0.0002}}, {"1", {0.0002}}, {"2", {0.0002}}, {"3", {0.001}},
                         {"4", {0.001}},  {"5", {0.001}},  {"6", {0.002}},  {"7", {0.002}}};
  return {
      {"img_height", int64_t{84}, "Observation height (each frame resized)."},
      {"img_width", int64_t{84}, "Observation width."},
      {"height", int64_t{0}, "Height of render()'s frames (the screen resized; 0: the screen's, as EnvPool)."},
      {"width", int64_t{0}, "Width of render()'s frames (0: the screen's)."},
      {"stack_num", int64_t{4}, "Frames stacked on the first axis."},
      {"frame_skip", int64_t{4}, "Tics an action is held per step."},
      {"episodic_life", false, "A death ends the episode even when the game goes on."},
      {"force_speed", false, "Combined actions keep SPEED pressed."},
      {"use_combined_action", false, "A Discrete action over EnvPool's button combinations instead of one value per button."},
      {"use_inter_area_resize", true, "cv2.INTER_AREA (False: INTER_LINEAR)."},
      {"weapon_duration", int64_t{5}, "Steps a weapon is held before its selected_weapon_reward_config applies."},
      {"reward_config", rewards, "Game variable -> (weight of a rise, weight of a fall)."},
      {"selected_weapon_reward_config", weapons, "Weapon slot (\"0\"..\"9\") -> reward per step held (with ammo)."},
      {"delta_button_config", ConfigTable{}, "Delta button -> (num, low, high): its values in combined actions."},
      {"cfg_path", std::string(), "A ViZDoom .cfg (default: the id's scenario, from the vizdoom wheel)."},
      {"wad_path", std::string(), "The scenario .wad (default: the id's, or what the cfg names)."},
      {"vzd_path", std::string(), "The ViZDoom engine binary (default: the vizdoom wheel's)."},
      {"iwad_path", std::string(), "The IWAD (default: the vizdoom wheel's freedoom2.wad)."},
      {"game_args", args.game_args, "Extra engine arguments."},
      {"map_id", std::string("map01"), "The map of the scenario to play."},
      {"lmp_save_dir", std::string(), "Record each episode to <dir>/env_<id>_<episode>.lmp."},
  };
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kFps = 35;  // Doom's tics per second

Spaces VizdoomEnv::spaces(const Config& c, const TaskArgs& a) {
  const int h = int_field(c, "img_height", 1, kMaxSide), w = int_field(c, "img_width", 1, kMaxSide);
  const int stack = int_field(c, "stack_num", 1, kMaxStack);
  int_field(c, "frame_skip", 1, kMaxFrameSkip);
  int_field(c, "weapon_duration", 0, std::numeric_limits<int32_t>::max());
  const Declared d = declared(files_of(c, a).cfg);
  Spaces s;
  s.observation = SpaceSpec::box(DType::kUInt8, {int64_t{stack} * d.channels, h, w}, {0.0}, {255.0});
  if (c.flag("use_combined_action"))
    s.action = SpaceSpec::discrete(static_cast<int64_t>(action_set_size(c, d.buttons)));
  else  // one value per button, unbounded (a delta button takes any value): Gymnasium samples it
    s.action = SpaceSpec::box(DType::kFloat64, {static_cast<int64_t>(d.buttons.size())}, {-kInf}, {kInf});
  for (const InfoVariable& v : info_variables()) s.infos.push_back({v.name, DType::kFloat64, {}});
  // render(): the latest screen as RGB (a gray screen's plane repeated), resized as observations are
  const int64_t rh = c.integer_in("height", 0, kMaxRenderSide), rw = c.integer_in("width", 0, kMaxRenderSide);
  s.render = {rh > 0 ? rh : d.height, rw > 0 ? rw : d.width, kFps};
  return s;
}

VizdoomEnv::VizdoomEnv(const Config& c, int env_id, const TaskArgs& a)
    : env_id_(env_id),
      frame_skip_(int_field(c, "frame_skip", 1, kMaxFrameSkip)),
      stack_num_(int_field(c, "stack_num", 1, kMaxStack)),
      img_h_(int_field(c, "img_height", 1, kMaxSide)),
      img_w_(int_field(c, "img_width", 1, kMaxSide)),
      weapon_duration_(int_field(c, "weapon_duration", 0, std::numeric_limits<int32_t>::max())),
      episodic_life_(c.flag("episodic_life")),
      combined_(c.flag("use_combined_action")) {
  const DoomFiles& doom = doom_files();
  const ScenarioFiles files = files_of(c, a);
  if (!c.text("lmp_save_dir").empty()) lmp_prefix_ = c.text("lmp_save_dir") + "/env_" + std::to_string(env_id) + "_";
  game_ = std::make_unique<DoomGame>();
  game_->setViZDoomPath(c.text("vzd_path").empty() ? doom.engine : c.text("vzd_path"));
  game_->setDoomGamePath(c.text("iwad_path").empty() ? doom.iwad : c.text("iwad_path"));
  if (!game_->loadConfig(files.cfg)) throw std::invalid_argument("vizdoom: cannot load the config " + files.cfg);
  game_->setWindowVisible(false);
  game_->addGameArgs(c.text("game_args"));
  game_->setMode(vz::PLAYER);
  const int64_t max_steps = c.integer("max_episode_steps");
  game_->setEpisodeTimeout(max_steps > 0 ? static_cast<unsigned int>((max_steps + 1) * frame_skip_) : 0);
  if (!files.wad.empty()) game_->setDoomScenarioPath(files.wad);
  game_->setDoomMap(c.text("map_id"));
  channels_ = static_cast<int>(game_->getScreenChannels());
  for (const InfoVariable& v : info_variables()) game_->addAvailableGameVariable(static_cast<vz::GameVariable>(v.id));
  for (vz::GameVariable v : game_->getAvailableGameVariables()) variables_.push_back(static_cast<int>(v));
  const auto slot = [&](int id) {
    for (size_t i = 0; i < variables_.size(); ++i)
      if (variables_[i] == id) return static_cast<int>(i);
    return -1;
  };
  hit_ = slot(vz::HITCOUNT), damage_ = slot(vz::DAMAGECOUNT), death_ = slot(vz::DEATHCOUNT);
  health_ = slot(vz::HEALTH), weapon_ = slot(vz::SELECTED_WEAPON), weapon_ammo_ = slot(vz::SELECTED_WEAPON_AMMO);
  for (const InfoVariable& v : info_variables()) info_slot_.push_back(slot(v.id));
  std::vector<int> buttons;
  for (vz::Button b : game_->getAvailableButtons()) buttons.push_back(static_cast<int>(b));
  buttons_ = buttons.size();
  action_set_ = combined_actions(buttons, c.flag("force_speed"), delta_steps(c, buttons));
  pos_.assign(variables_.size(), 0.0);
  neg_.assign(variables_.size(), 0.0);
  for (const auto& [name, weights] : c.table("reward_config")) {
    const int id = game_variable_id(name);
    if (id < 0 || weights.size() != 2)
      throw std::invalid_argument("reward_config: '" + name + "' must name a game variable with (rise, fall) weights");
    if (const int i = slot(id); i >= 0) {
      pos_[static_cast<size_t>(i)] = static_cast<float>(weights[0]);  // EnvPool keeps them as float32
      neg_[static_cast<size_t>(i)] = static_cast<float>(weights[1]);
    }
  }
  for (const auto& [name, v] : c.table("selected_weapon_reward_config")) {
    if (name.size() != 1 || name[0] < '0' || name[0] > '9' || v.size() != 1)
      throw std::invalid_argument("selected_weapon_reward_config: keys are weapon slots \"0\"..\"9\", got '" + name + "'");
    weapon_reward_[static_cast<size_t>(name[0] - '0')] = static_cast<float>(v[0]);
  }
  const int src_h = static_cast<int>(game_->getScreenHeight()), src_w = static_cast<int>(game_->getScreenWidth());
  resize_ = atari::Resizer(src_h, src_w, img_h_, img_w_, c.flag("use_inter_area_resize"));
  inter_area_ = c.flag("use_inter_area_resize");
  render_h_ = c.integer("height") > 0 ? static_cast<int>(c.integer("height")) : src_h;
  render_w_ = c.integer("width") > 0 ? static_cast<int>(c.integer("width")) : src_w;
  const size_t frame = static_cast<size_t>(channels_) * static_cast<size_t>(img_h_) * static_cast<size_t>(img_w_);
  for (int i = 0; i < stack_num_; ++i) stack_.emplace_back(frame, 0);
}

VizdoomEnv::~VizdoomEnv() {
  if (game_ && started_) game_->close();
}

void VizdoomEnv::seed(uint64_t s) {
  if (s > UINT32_MAX) throw std::invalid_argument("ViZDoom seeds are in [0, 2**32 - 1], got " + std::to_string(s));
  seed_ = static_cast<uint32_t>(s);
  seed_pending_ = true;
}

void VizdoomEnv::seed_from_os() {
  std::random_device device;
  seed_ = static_cast<uint32_t>(device());
  seed_pending_ = true;
}

void VizdoomEnv::reset() {
  continued_ = false;
  if (!started_) {  // the engine starts here, so the first episode follows the seed
    game_->setSeed(seed_);
    if (!game_->init()) throw std::runtime_error("vizdoom: the engine did not start");
    started_ = true;
    seed_pending_ = false;
  } else if (ended_ && episodic_life_ && !game_->isEpisodeFinished()) {
    // a life lost under episodic_life: the game goes on, after one step of no buttons (EnvPool's)
    game_->makeAction(action_set_.front(), static_cast<unsigned int>(frame_skip_));
    continued_ = true;
  } else {
    if (seed_pending_) game_->setSeed(seed_);
    seed_pending_ = false;
    game_->newEpisode(lmp_prefix_.empty() ? std::string() : lmp_prefix_ + std::to_string(episodes_) + ".lmp");
  }
  ++episodes_;
  ended_ = false;
  observe(true);
}

StepResult VizdoomEnv::step(const void* action) {
  if (combined_) {
    const int64_t k = *static_cast<const int64_t*>(action);
    game_->setAction(action_set_.at(static_cast<size_t>(k)));
  } else {
    const auto* v = static_cast<const double*>(action);
    game_->setAction(std::vector<double>(v, v + buttons_));
  }
  game_->advanceAction(static_cast<unsigned int>(frame_skip_), true);
  const bool finished = game_->isEpisodeFinished();
  StepResult r;
  r.terminated = finished || (episodic_life_ && game_->isPlayerDead());
  ended_ = r.terminated;
  r.reward = observe(false);
  return r;
}

float VizdoomEnv::observe(bool is_reset) {
  const vz::GameStatePtr state = game_->getState();
  if (!state) return 0.0f;  // the episode is over: the last frames and variables stay (EnvPool's)
  const std::vector<double>& raw = state->gameVariables;
  last_ = is_reset ? raw : now_;
  now_ = raw;
  // HITCOUNT, DAMAGECOUNT, DEATHCOUNT are not reset by newEpisode: count them from its start.
  for (auto [i, start] : {std::pair{hit_, &hit0_}, std::pair{damage_, &damage0_}, std::pair{death_, &death0_}}) {
    if (i < 0) continue;
    const auto k = static_cast<size_t>(i);
    if (is_reset) {
      *start = now_[k];
      last_[k] = 0;
    }
    now_[k] -= *start;
  }
  float reward = 0.0f;
  int weapon = -1, ammo = 0;
  for (size_t i = 0; i < now_.size(); ++i) {
    double delta = now_[i] - last_[i];
    const int id = variables_[i];
    if (id == vz::DAMAGECOUNT && delta >= 200) {
      delta = 200;
    } else if (id == vz::HITCOUNT && delta >= 5) {
      delta = 5;
    } else if (id == vz::SELECTED_WEAPON) {
      weapon = static_cast<int>(now_[i]);
    } else if (id == vz::SELECTED_WEAPON_AMMO) {
      ammo = static_cast<int>(now_[i]);
    } else if (id == vz::HEALTH) {  // ViZDoom's -999900 health glitch
      if (last_[i] < 0 && now_[i] < 0)
        last_[i] = now_[i] = 100;
      else if (now_[i] < 0)
        now_[i] = last_[i];
      else if (last_[i] < 0)
        last_[i] = now_[i];
      delta = now_[i] - last_[i];
    }
    if (delta >= 0)
      reward += static_cast<float>(delta * pos_[i]);
    else
      reward -= static_cast<float>(delta * neg_[i]);
  }
  if (is_reset) held_weapon_ = -1, held_steps_ = 0;
  if (weapon == held_weapon_) {
    ++held_steps_;
  } else {
    held_weapon_ = weapon;
    held_steps_ = 1;
  }
  if (weapon >= 0 && weapon < 10 && held_steps_ >= weapon_duration_ && ammo > 0)
    reward = static_cast<float>(reward + weapon_reward_[static_cast<size_t>(weapon)]);  // float += double, as EnvPool
  // the new frame: each channel plane resized, pushed onto the stack
  std::vector<uint8_t> frame = std::move(stack_.front());
  stack_.pop_front();
  const auto* screen = state->screenBuffer->data();
  const size_t plane = state->screenBuffer->size() / static_cast<size_t>(channels_);
  if (rendering_) screen_.assign(screen, screen + state->screenBuffer->size());
  const size_t out_plane = static_cast<size_t>(img_h_) * static_cast<size_t>(img_w_);
  for (int ch = 0; ch < channels_; ++ch) resize_.run(screen + static_cast<size_t>(ch) * plane, frame.data() + ch * out_plane);
  if (is_reset)
    for (auto& f : stack_) f = frame;
  stack_.push_back(std::move(frame));
  return reward;
}

void VizdoomEnv::enable_rendering() {
  rendering_ = true;
  const int src_h = static_cast<int>(game_->getScreenHeight()), src_w = static_cast<int>(game_->getScreenWidth());
  render_resize_ = atari::Resizer(src_h, src_w, render_h_, render_w_, inter_area_);
}

void VizdoomEnv::render(uint8_t* rgb, RenderSlot& /*slot*/) {
  if (screen_.empty()) throw std::logic_error("vizdoom: render() before the first reset");
  const size_t src_plane = screen_.size() / static_cast<size_t>(channels_);
  const size_t plane = static_cast<size_t>(render_h_) * static_cast<size_t>(render_w_);
  planes_.resize(plane * static_cast<size_t>(channels_));
  for (int ch = 0; ch < channels_; ++ch)
    render_resize_.run(screen_.data() + static_cast<size_t>(ch) * src_plane, planes_.data() + static_cast<size_t>(ch) * plane);
  // planar (one plane per screen channel) to rows of RGB; a gray screen's plane in all three
  for (size_t i = 0; i < plane; ++i)
    for (int k = 0; k < 3; ++k) rgb[i * 3 + static_cast<size_t>(k)] = planes_[static_cast<size_t>(channels_ == 1 ? 0 : k) * plane + i];
}

void VizdoomEnv::write_obs(void* dst) const {
  auto* out = static_cast<uint8_t*>(dst);
  for (const auto& f : stack_) {
    std::memcpy(out, f.data(), f.size());
    out += f.size();
  }
}

void VizdoomEnv::write_info(void* const* dst) const {
  for (size_t f = 0; f < info_slot_.size(); ++f) {
    const int i = info_slot_[f];
    *static_cast<double*>(dst[f]) = (i >= 0 && static_cast<size_t>(i) < now_.size()) ? now_[static_cast<size_t>(i)] : 0.0;
  }
}

}  // namespace envhive::vizdoom
