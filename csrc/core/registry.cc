#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "multi_agent.h"
#include "task.h"

namespace envhive {

namespace {

bool pool_info_name(const std::string& name) {
  for (const char* reserved : kPoolInfoNames)
    if (name == reserved) return true;
  return false;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string bytes_text(uint64_t bytes) {
  if (bytes == UINT64_MAX) return "more than 2**64 bytes";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3g GiB", static_cast<double>(bytes) / static_cast<double>(uint64_t{1} << 30));
  return std::to_string(bytes) + " bytes (" + buf + ")";
}

// A space (or leaf) of one env over kMaxSpaceBytes: SpaceTooLarge, before its elements are counted.
void check_size(const SpaceSpec& s, const std::string& what, const std::string& task) {
  const uint64_t bytes = s.checked_bytes();
  if (bytes <= kMaxSpaceBytes) return;
  const std::string shape = s.is_leaf() ? " of shape " + shape_text(s.shape) + " " + dtype_name(s.dtype) : "";
  throw SpaceTooLarge(task + ": the " + what + shape + " of one env would take " + bytes_text(bytes) +
                      ", more than envhive's limit of " + bytes_text(kMaxSpaceBytes));
}

void validate_space(const SpaceSpec& s, const std::string& what, const std::string& task, int depth = 0) {
  const auto fail = [&](const std::string& why) { throw InvalidDeclaration(task + ": " + what + " " + why); };
  switch (s.kind) {
    case SpaceSpec::Kind::kDiscrete:
      if (s.n < 1) fail("is Discrete(" + std::to_string(s.n) + "): it needs n >= 1");
      return;
    case SpaceSpec::Kind::kText:
      if (s.shape.size() != 1 || s.shape[0] < 1) fail("is a Text without a max_length >= 1");
      check_size(s, what, task);
      if (s.min_length < 0 || s.min_length > s.shape[0]) fail("is a Text whose min_length is not in [0, max_length]");
      return;
    case SpaceSpec::Kind::kDict:
    case SpaceSpec::Kind::kTuple: {
      if (depth >= kMaxSpaceDepth) fail("nests Dict / Tuple spaces deeper than " + std::to_string(kMaxSpaceDepth));
      if (s.items.empty()) fail("is an empty Dict or Tuple");
      std::set<std::string> keys;
      for (size_t i = 0; i < s.items.size(); ++i) {
        const auto& [name, item] = s.items[i];
        if (s.kind == SpaceSpec::Kind::kDict) {
          if (name.empty() || name.find('/') != std::string::npos) fail("has a Dict key that is empty or holds '/'");
          if (!keys.insert(name).second) fail("has the Dict key '" + name + "' twice");
        }
        validate_space(item, what + "[" + (name.empty() ? std::to_string(i) : "'" + name + "'") + "]", task, depth + 1);
      }
      check_size(s, what, task);  // every leaf together (each leaf was checked before its elements were counted)
      return;
    }
    case SpaceSpec::Kind::kBox: break;
  }
  if (s.shape.size() > kMaxSpaceDims) fail("has more than " + std::to_string(kMaxSpaceDims) + " dimensions");
  for (int64_t d : s.shape)
    if (d < 0) fail("has a negative dimension");
  check_size(s, what, task);  // before anything counts its elements
  const size_t count = s.count();
  for (const auto* bounds : {&s.low, &s.high})
    if (bounds->size() != 1 && bounds->size() != count)
      fail("has " + std::to_string(bounds->size()) + " bounds for " + std::to_string(count) +
           " elements (give one, or one per element)");
  const size_t distinct = s.low.size() == 1 && s.high.size() == 1 ? std::min<size_t>(count, 1) : count;
  for (size_t i = 0; i < distinct; ++i)
    if (std::isnan(s.low_at(i)) || std::isnan(s.high_at(i)) || s.low_at(i) > s.high_at(i))
      fail("has low > high (or a NaN bound) at element " + std::to_string(i));
}

bool agent_info_name(const std::string& name) {
  for (const char* reserved : kAgentInfoNames)
    if (name == reserved) return true;
  return false;
}

bool same_box(const SpaceSpec& a, const SpaceSpec& b) {
  if (a.kind != b.kind || a.dtype != b.dtype || a.shape != b.shape) return false;
  for (size_t i = 0; i < a.count(); ++i)
    if (a.low_at(i) != b.low_at(i) || a.high_at(i) != b.high_at(i)) return false;
  return true;
}

// A multi-agent task's agents against the pool-level spaces multi_agent_spaces builds from them.
void validate_agents(const Spaces& spaces, const std::string& task) {
  const auto fail = [&](const std::string& why) { throw InvalidDeclaration(task + ": " + why); };
  std::set<std::string> names;
  for (size_t i = 0; i < spaces.agents.size(); ++i) {
    const AgentSpec& agent = spaces.agents[i];
    if (agent.name.empty() || agent.name.find('/') != std::string::npos)
      fail("agent " + std::to_string(i) + " has a name that is empty or holds '/'");
    if (!names.insert(agent.name).second) fail("the agent name '" + agent.name + "' is declared twice");
    validate_space(agent.observation, "observation space of agent '" + agent.name + "'", task);
    validate_space(agent.action, "action space of agent '" + agent.name + "'", task);
  }
  const SpaceSpec& obs = spaces.observation;
  bool keys_match = obs.kind == SpaceSpec::Kind::kDict && obs.items.size() == spaces.agents.size();
  for (size_t i = 0; keys_match && i < obs.items.size(); ++i) keys_match = obs.items[i].first == spaces.agents[i].name;
  if (!keys_match)
    fail("a multi-agent task's observation must be a Dict keyed by its agent names, in agent order "
         "(declare its spaces with multi_agent_spaces)");
  if (!same_box(spaces.action, agents_action_space(spaces.agents, task)))
    fail("a multi-agent task's action space must be its agents' action row (declare its spaces with "
         "multi_agent_spaces)");
  const auto expected = agent_infos(spaces.agents.size());
  bool infos_match = spaces.infos.size() >= expected.size();
  for (size_t i = 0; infos_match && i < expected.size(); ++i)
    infos_match = spaces.infos[i].name == expected[i].name && spaces.infos[i].dtype == expected[i].dtype &&
                  spaces.infos[i].shape == expected[i].shape;
  if (!infos_match)
    fail("a multi-agent task's first info fields must be agent_reward, agent_terminated, agent_truncated and "
         "agent_live of shape [n_agents] (declare its spaces with multi_agent_spaces)");
}

}  // namespace

void validate_spaces(const Spaces& spaces, const std::string& task) {
  if (!spaces.agents.empty()) validate_agents(spaces, task);
  validate_space(spaces.observation, "observation space", task);
  if (const size_t leaves = space_leaves(spaces.observation).size(); leaves > kMaxObsLeaves)
    throw InvalidDeclaration(task + ": the observation space has " + std::to_string(leaves) + " leaves, at most " +
                             std::to_string(kMaxObsLeaves) + " are supported");
  validate_space(spaces.action, "action space", task);
  if (spaces.action.kind != SpaceSpec::Kind::kBox && spaces.action.kind != SpaceSpec::Kind::kDiscrete)
    throw InvalidDeclaration(task + ": the action space must be a Box or a Discrete");
  if (spaces.infos.size() > kMaxInfoFields)
    throw InvalidDeclaration(task + ": " + std::to_string(spaces.infos.size()) + " info fields declared, at most " +
                                std::to_string(kMaxInfoFields) + " are supported");
  std::set<std::string> names;
  for (const auto& info : spaces.infos) {
    if (info.name.empty()) throw InvalidDeclaration(task + ": an info field has no name");
    if (pool_info_name(info.name))
      throw InvalidDeclaration(task + ": info field '" + info.name + "' is reserved (the pool reports it)");
    if (spaces.agents.empty() && agent_info_name(info.name))
      throw InvalidDeclaration(task + ": info field '" + info.name + "' is reserved for multi-agent tasks");
    if (!names.insert(info.name).second)
      throw InvalidDeclaration(task + ": info field '" + info.name + "' is declared twice");
    for (int64_t d : info.shape)
      if (d < 0) throw InvalidDeclaration(task + ": info field '" + info.name + "' has a negative dimension");
    uint64_t bytes = dtype_size(info.dtype);
    for (int64_t d : info.shape) bytes = saturating_mul(bytes, static_cast<uint64_t>(d));
    if (bytes > kMaxSpaceBytes)
      throw SpaceTooLarge(task + ": info field '" + info.name + "' of shape " + shape_text(info.shape) +
                          " of one env would take " + bytes_text(bytes) + ", more than envhive's limit of " +
                          bytes_text(kMaxSpaceBytes));
  }
  const RenderSpec& r = spaces.render;
  if (r.height != 0 || r.width != 0) {
    for (const int64_t side : {r.height, r.width})
      if (side < 1 || side > kMaxRenderSide)
        throw InvalidDeclaration(task + ": frames of " + std::to_string(r.height) + " x " + std::to_string(r.width) +
                                 " pixels cannot be rendered (each side must be in [1, " +
                                 std::to_string(kMaxRenderSide) + "])");
  }
  if (r.fps < 0 || r.threads < 0) throw InvalidDeclaration(task + ": render fps and threads must be >= 0");
}

ConfigField max_episode_steps_field(int64_t default_steps) {
  return {"max_episode_steps", default_steps,
          "Episode length (agent steps) after which the pool truncates the episode; 0: no time limit."};
}

namespace {
std::string value_text(const ConfigValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return Config::format_real(*d);
  if (const auto* t = std::get_if<std::string>(&v)) return "'" + (t->size() > 40 ? t->substr(0, 40) + "..." : *t) + "'";
  return "[...]";
}
}  // namespace

Spaces TaskDef::resolve_spaces(const Config& config) const {
  Spaces s = spaces(config);
  try {
    validate_spaces(s, meta.id);
  } catch (const SpaceTooLarge& e) {  // name the kwargs that made it: those that differ from their defaults
    std::string changed;
    for (const auto& f : this->config) {
      const auto it = config.values().find(f.name);
      if (it != config.values().end() && !(it->second == f.default_value))
        changed += (changed.empty() ? "" : ", ") + f.name + "=" + value_text(it->second);
    }
    throw SpaceTooLarge(std::string(e.what()) +
                        (changed.empty() ? "" : "; the kwargs given: " + changed + " (make the space smaller)"));
  }
  return s;
}

Config TaskDef::resolve_config(const std::map<std::string, ConfigValue>& values) const {
  std::map<std::string, ConfigValue> resolved;
  for (const auto& f : config) resolved[f.name] = f.default_value;
  for (const auto& [name, value] : values) {
    auto it = resolved.find(name);
    if (it == resolved.end()) throw std::invalid_argument(meta.id + ": unknown config field '" + name + "'");
    it->second = value;
  }
  return Config(std::move(resolved));
}

void TaskRegistry::check(const TaskDef& def) {
  if (def.meta.id.empty()) throw std::invalid_argument("a task needs an id");
  if (!def.spaces || !def.make) throw std::invalid_argument(def.meta.id + ": spaces and make must be set");
  std::set<std::string> names;
  for (const auto& f : def.config)
    if (!names.insert(f.name).second)
      throw std::invalid_argument(def.meta.id + ": config field '" + f.name + "' is declared twice");
  for (const auto& [name, doc] : def.meta.reset_options)
    if (name.empty()) throw std::invalid_argument(def.meta.id + ": a reset option has no name");
}

void TaskRegistry::add(TaskDef def) {
  check(def);
  if (find(def.meta.id)) throw std::invalid_argument("task id '" + def.meta.id + "' is registered twice");
  tasks_.push_back(std::move(def));
}

void TaskRegistry::replace(TaskDef def) {
  check(def);
  for (auto& existing : tasks_)
    if (existing.meta.id == def.meta.id) {
      existing = std::move(def);
      return;
    }
  tasks_.push_back(std::move(def));
}

const TaskDef* TaskRegistry::find(const std::string& id) const {
  for (const auto& t : tasks_)
    if (t.meta.id == id) return &t;
  return nullptr;
}

TaskRegistry& task_registry() {
  static TaskRegistry registry;
  return registry;
}

}  // namespace envhive
