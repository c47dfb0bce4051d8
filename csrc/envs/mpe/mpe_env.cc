#include "mpe_env.h"

#include "frame.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace envhive::mpe {
namespace {

constexpr size_t kMoveActions = 5;  // dim_p * 2 + 1: no-op, -x, +x, -y, +y
constexpr double kSensitivity = 5.0;
constexpr const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

// "<agent> sends <word>   ", mpe2's text line of an agent that talks.
std::string text_line(const std::string& agent, const std::string& word) { return agent + " sends " + word + "   "; }

SpaceSpec observation_box(size_t n) {
  const double inf = std::numeric_limits<double>::infinity();
  return SpaceSpec::box(DType::kFloat32, {static_cast<int64_t>(n)}, {-inf}, {inf});
}

}  // namespace

std::vector<ConfigField> MpeEnv::config(const ScenarioDef& def) {
  std::vector<ConfigField> fields = def.fields ? def.fields() : std::vector<ConfigField>{};
  if (def.local_ratio)
    fields.push_back({"local_ratio", 0.5,
                      "Weight of each agent's own reward against the shared (global) one, in [0, 1]."});
  fields.push_back({"max_cycles", int64_t{25}, "Steps until every agent is truncated (mpe2's max_cycles)."});
  fields.push_back({"continuous_actions", false,
                    "Box(0, 1) actions (mpe2's continuous layout) instead of Discrete ones."});
  fields.push_back({"dynamic_rescaling", true, "Scale the drawn entities with the camera's zoom (frames only)."});
  if (def.terminate_option)
    fields.push_back({"terminate_on_success", false, "End the episode (terminations) once the scenario's goal is met."});
  if (def.curriculum)
    fields.push_back({"curriculum", false,
                      "mpe2's curriculum mode at its stage 0 (mpe2 1.1.1 never leaves stage 0: see docs/envs.md)."});
  return fields;
}

std::vector<MpeEnv::ActionLayout> MpeEnv::action_layouts(const Scenario& s, bool continuous) {
  std::vector<ActionLayout> layouts;
  const size_t dim_c = s.world.dim_c();
  size_t offset = 0;
  for (size_t i = 0; i < s.world.num_agents(); ++i) {
    ActionLayout l;
    l.movable = s.world.agent(i).movable;
    l.silent = s.world.silent[i] != 0;
    size_t dim = l.movable ? kMoveActions : (continuous ? 0 : 1);
    if (!l.silent) dim = continuous ? dim + dim_c : dim * dim_c;
    if (continuous) {
      l.count = dim;
      l.offset = offset;
      offset += dim;
    } else {
      l.n = static_cast<int64_t>(dim);
    }
    layouts.push_back(l);
  }
  return layouts;
}

Spaces MpeEnv::spaces(const Config& c, const ScenarioDef& def) {
  const std::unique_ptr<Scenario> s = def.make(c);
  const bool continuous = c.flag("continuous_actions");
  const auto layouts = action_layouts(*s, continuous);
  std::vector<AgentSpec> agents;
  for (size_t i = 0; i < s->world.num_agents(); ++i) {
    SpaceSpec action = continuous ? SpaceSpec::box(DType::kFloat32, {static_cast<int64_t>(layouts[i].count)}, {0.0}, {1.0})
                                  : SpaceSpec::discrete(layouts[i].n);
    agents.push_back({s->agent_names[i], observation_box(s->observation_size(i)), std::move(action)});
  }
  // The glyphs of the frames' text lines (mpe2 writes one per agent that talks).
  std::string chars = kTextCharacters;
  for (size_t i = 0; i < s->world.num_agents(); ++i)
    if (!s->world.silent[i]) chars += s->agent_names[i];
  load_glyphs(def.data, chars);
  return multi_agent_spaces(std::move(agents), {}, {.height = kFrameSide, .width = kFrameSide, .fps = kFrameFps});
}

MpeEnv::MpeEnv(const Config& c, int /*env_id*/, const ScenarioDef& def)
    : MultiAgentEnv(0),
      scenario_(def.make(c)),
      continuous_(c.flag("continuous_actions")),
      has_local_ratio_(def.local_ratio),
      max_cycles_(c.integer_in("max_cycles", 1, INT64_MAX, " (steps before every agent is truncated)")),
      dynamic_rescaling_(c.flag("dynamic_rescaling")) {
  const size_t n = scenario_->world.num_agents();
  reward_.assign(n, 0.0);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  live_.assign(n, 1);
  if (has_local_ratio_) local_ratio_ = c.real_in("local_ratio", 0.0, 1.0, " (a proportion)");
  layouts_ = action_layouts(*scenario_, continuous_);
  size_t largest = 0;
  for (size_t i = 0; i < n; ++i) largest = std::max(largest, scenario_->observation_size(i));
  obs_buf_.assign(largest, 0.0);
  size_t widest = 0;
  for (const ActionLayout& l : layouts_) widest = std::max(widest, l.count);
  action_buf_.assign(widest, 0.0f);
}

void MpeEnv::reset_agents() {
  scenario_->reset_world(rng());
  steps_ = 0;
  original_cam_range_ = camera_range(scenario_->world);
}

std::string MpeEnv::message(size_t agent) const {
  const World& w = scenario_->world;
  if (w.silent[agent]) return "";
  const double* c = w.comm(agent);
  bool quiet = true;
  for (size_t k = 0; k < w.dim_c(); ++k) quiet = quiet && c[k] == 0.0;
  std::string word;
  if (quiet) {
    word = "_";
  } else if (continuous_) {  // "[" + ",".join(f"{comm:.2f}") + "]"
    word = "[";
    for (size_t k = 0; k < w.dim_c(); ++k) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.2f", c[k]);
      word += (k ? "," : "") + std::string(buf);
    }
    word += "]";
  } else {  // alphabet[np.argmax(c)]: the first largest
    size_t best = 0;
    for (size_t k = 1; k < w.dim_c(); ++k)
      if (c[k] > c[best]) best = k;
    word = std::string(1, kAlphabet[best % 26]);
  }
  return text_line(scenario_->agent_names[agent], word);
}

void MpeEnv::render(uint8_t* rgb, RenderSlot&) {
  messages_.resize(scenario_->world.num_agents());
  for (size_t i = 0; i < messages_.size(); ++i) messages_[i] = message(i);
  draw_frame(scenario_->world, original_cam_range_, dynamic_rescaling_, messages_, rgb);
}

void MpeEnv::set_discrete(size_t agent, int64_t a) {
  const ActionLayout& l = layouts_[agent];
  if (a < 0 || a >= l.n)
    throw std::out_of_range("action " + std::to_string(a) + " of agent '" + scenario_->agent_names[agent] +
                            "' is not in Discrete(" + std::to_string(l.n) + ")");
  World& w = scenario_->world;
  double* u = w.action_u(agent);
  double* c = w.action_c(agent);
  u[0] = u[1] = 0.0;
  std::fill(c, c + w.dim_c(), 0.0);
  if (l.movable) {
    const int64_t move = a % static_cast<int64_t>(kMoveActions);
    a /= static_cast<int64_t>(kMoveActions);
    if (move == 1) u[0] = -1.0;
    if (move == 2) u[0] = +1.0;
    if (move == 3) u[1] = -1.0;
    if (move == 4) u[1] = +1.0;
    const Entity& e = w.agent(agent);
    const double sensitivity = e.has_accel ? e.accel : kSensitivity;
    u[0] *= sensitivity;
    u[1] *= sensitivity;
  }
  if (!l.silent) c[a] = 1.0;
}

void MpeEnv::set_continuous(size_t agent, const float* a) {
  const ActionLayout& l = layouts_[agent];
  // pettingzoo's ClipOutOfBoundsWrapper: a NaN is an error, anything else is clipped into [0, 1].
  float* v = action_buf_.data();
  for (size_t k = 0; k < l.count; ++k) {
    if (std::isnan(a[k]))
      throw std::invalid_argument("action of agent '" + scenario_->agent_names[agent] + "' holds a NaN");
    v[k] = a[k] < 0.0f ? 0.0f : (a[k] > 1.0f ? 1.0f : a[k]);
  }
  World& w = scenario_->world;
  double* u = w.action_u(agent);
  double* c = w.action_c(agent);
  u[0] = u[1] = 0.0;
  std::fill(c, c + w.dim_c(), 0.0);
  const float* rest = v;
  if (l.movable) {
    // u[0] += a[2] - a[1]; u[1] += a[4] - a[3] (float32 differences), then u *= sensitivity.
    const float dx = v[2] - v[1];
    const float dy = v[4] - v[3];
    u[0] += static_cast<double>(dx);
    u[1] += static_cast<double>(dy);
    const Entity& e = w.agent(agent);
    const double sensitivity = e.has_accel ? e.accel : kSensitivity;
    u[0] *= sensitivity;
    u[1] *= sensitivity;
    rest += kMoveActions;
  }
  if (!l.silent)
    for (size_t k = 0; k < w.dim_c(); ++k) c[k] = static_cast<double>(rest[k]);
}

void MpeEnv::step_agents(const void* action_row) {
  const size_t n = scenario_->world.num_agents();
  if (continuous_) {
    const float* row = static_cast<const float*>(action_row);
    for (size_t i = 0; i < n; ++i) set_continuous(i, row + layouts_[i].offset);
  } else {
    const int64_t* row = static_cast<const int64_t*>(action_row);
    for (size_t i = 0; i < n; ++i) set_discrete(i, row[i]);
  }
  scenario_->world.step();
  const double global = has_local_ratio_ ? scenario_->global_reward() : 0.0;
  for (size_t i = 0; i < n; ++i) {
    double r = scenario_->reward(i);
    if (has_local_ratio_) r = global * (1 - local_ratio_) + r * local_ratio_;
    reward_[i] = 0.0 + r;  // pettingzoo's parallel wrapper sums 0 + ... + reward: -0.0 becomes 0.0
  }
  ++steps_;
  if (steps_ >= max_cycles_) {
    std::fill(truncated_.begin(), truncated_.end(), uint8_t{1});
  } else if (scenario_->is_terminal()) {
    std::fill(terminated_.begin(), terminated_.end(), uint8_t{1});
  }
}

void MpeEnv::write_obs_leaves(void* const* dst) const {
  for (size_t i = 0; i < scenario_->world.num_agents(); ++i) {
    scenario_->observation(i, obs_buf_.data());
    float* out = static_cast<float*>(dst[i]);
    const size_t n = scenario_->observation_size(i);
    for (size_t k = 0; k < n; ++k) out[k] = static_cast<float>(obs_buf_[k]);
  }
}

}  // namespace envhive::mpe
