// Multi-agent tasks (PettingZoo's parallel API): one Env is one game of several agents, stepped
// with every agent's action at once. The pool sees an ordinary task: its observation is a Dict of
// the agents' observations, its action one row of every agent's action, its reward the team's,
// and four info fields of shape [n_agents] carry what each agent got (multi_agent_spaces). Python
// turns them back into PettingZoo's dicts keyed by agent (envhive.multiagent).
//
// A task declares its agents with multi_agent_spaces(...) in its static spaces() and derives from
// MultiAgentEnv, implementing reset_agents() and step_agents(), which fill the per-agent arrays.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "env.h"
#include "spec.h"

namespace envhive {

// Values one agent's action takes in the action row: 1 for a Discrete, the Box's element count.
inline size_t agent_action_count(const AgentSpec& agent) {
  return agent.action.kind == SpaceSpec::Kind::kDiscrete ? 1 : agent.action.count();
}

// Where agent i's action starts in the action row (in values, not bytes).
inline size_t action_offset(const std::vector<AgentSpec>& agents, size_t i) {
  size_t offset = 0;
  for (size_t k = 0; k < i && k < agents.size(); ++k) offset += agent_action_count(agents[k]);
  return offset;
}

// The action row of a pool of these agents: every agent Discrete -> Box int64 [n_agents], element i
// in [start_i, start_i + n_i - 1]; every agent a Box of one dtype -> a Box of that dtype of every
// agent's values, agent i's at action_offset(i), bounds concatenated. Anything else (a mix, two Box
// dtypes, a composite) throws InvalidDeclaration naming `task`.
inline SpaceSpec agents_action_space(const std::vector<AgentSpec>& agents, const std::string& task = "") {
  const auto fail = [&](const std::string& why) {
    throw InvalidDeclaration((task.empty() ? std::string("multi-agent task") : task) + ": " + why);
  };
  if (agents.empty()) fail("a multi-agent task needs at least one agent");
  const SpaceSpec::Kind kind = agents[0].action.kind;
  if (kind != SpaceSpec::Kind::kDiscrete && kind != SpaceSpec::Kind::kBox)
    fail("agent '" + agents[0].name + "' acts with a space that is not a Box or a Discrete");
  std::vector<double> low, high;
  for (const auto& agent : agents) {
    const SpaceSpec& a = agent.action;
    if (a.kind != kind)
      fail("agents act with a mix of Discrete and Box (or composite) spaces: agent '" + agent.name +
           "' differs from agent '" + agents[0].name + "'; every agent's action must be Discrete, or every one a Box");
    if (kind == SpaceSpec::Kind::kDiscrete) {
      low.push_back(static_cast<double>(a.start));
      high.push_back(static_cast<double>(a.start + a.n - 1));
      continue;
    }
    if (a.dtype != agents[0].action.dtype)
      fail("agents act with Boxes of different dtypes (" + std::string(dtype_name(a.dtype)) + " for '" + agent.name +
           "', " + dtype_name(agents[0].action.dtype) + " for '" + agents[0].name + "')");
    for (int64_t d : a.shape)
      if (d < 0) fail("agent '" + agent.name + "' has an action Box with a negative dimension");
    if (a.low.empty() || a.high.empty()) fail("agent '" + agent.name + "' has an action Box without bounds");
    if (a.checked_bytes() > kMaxSpaceBytes) fail("agent '" + agent.name + "' has an action Box over the size limit");
    for (size_t e = 0; e < a.count(); ++e) {
      low.push_back(a.low.size() == 1 ? a.low[0] : e < a.low.size() ? a.low[e] : a.low.back());
      high.push_back(a.high.size() == 1 ? a.high[0] : e < a.high.size() ? a.high[e] : a.high.back());
    }
  }
  const DType dtype = kind == SpaceSpec::Kind::kDiscrete ? DType::kInt64 : agents[0].action.dtype;
  const auto n = static_cast<int64_t>(low.size());
  return SpaceSpec::box(dtype, {n}, std::move(low), std::move(high));
}

// The four per-agent info fields every multi-agent task reports first (kAgentInfoNames).
inline std::vector<InfoSpec> agent_infos(size_t n_agents) {
  const std::vector<int64_t> shape = {static_cast<int64_t>(n_agents)};
  return {InfoSpec{kAgentInfoNames[0], DType::kFloat64, shape}, InfoSpec{kAgentInfoNames[1], DType::kBool, shape},
          InfoSpec{kAgentInfoNames[2], DType::kBool, shape}, InfoSpec{kAgentInfoNames[3], DType::kBool, shape}};
}

// A multi-agent task's Spaces from its agents: observation Dict{agent name: its observation} in
// agent order, the action row (agents_action_space), the four per-agent infos then `extra_infos`.
inline Spaces multi_agent_spaces(std::vector<AgentSpec> agents, std::vector<InfoSpec> extra_infos = {},
                                 RenderSpec render = {}) {
  Spaces s;
  std::vector<std::pair<std::string, SpaceSpec>> items;
  items.reserve(agents.size());
  for (const auto& agent : agents) items.emplace_back(agent.name, agent.observation);
  s.observation = SpaceSpec::dict(std::move(items));
  s.action = agents_action_space(agents);
  s.infos = agent_infos(agents.size());
  for (auto& info : extra_infos) s.infos.push_back(std::move(info));
  s.render = render;
  s.agents = std::move(agents);
  return s;
}

// The base of a multi-agent task. The pool steps it as one Env; the per-agent results live in the
// protected arrays below (one element per agent, in declaration order), which the task fills:
//
// - reset(): every agent live, rewards 0, flags false, then reset_agents() (which may set an agent
//   not live: it is not in PettingZoo's env.agents from the start).
// - step(): an agent that terminated or was truncated at the step before is no longer live; then
//   rewards 0 and flags false, then step_agents(row) sets reward_, terminated_, truncated_ of the
//   live agents (the actions of agents not live are filler: ignore them). live_[i] after a step
//   says agent i took part in it (it appears in that step's dicts); it stays in env.agents unless
//   it terminated or was truncated. Agents not live have reward 0 and both flags false.
// - The StepResult is the team's: reward = the sum of the live agents' rewards; truncated = every
//   live agent truncated (the task's clock); terminated = no agent remains in env.agents and not
//   every live agent was truncated. The pool's max_episode_steps truncates the whole game: the
//   facade reports it as a truncation of every agent still in env.agents.
class MultiAgentEnv : public Env {
 public:
  explicit MultiAgentEnv(size_t n_agents)
      : reward_(n_agents, 0.0), terminated_(n_agents, 0), truncated_(n_agents, 0), live_(n_agents, 1) {}

  void reset() final {
    std::fill(reward_.begin(), reward_.end(), 0.0);
    std::fill(terminated_.begin(), terminated_.end(), uint8_t{0});
    std::fill(truncated_.begin(), truncated_.end(), uint8_t{0});
    std::fill(live_.begin(), live_.end(), uint8_t{1});
    reset_agents();
  }

  StepResult step(const void* action_row) final {
    for (size_t i = 0; i < n_agents(); ++i) {
      if (terminated_[i] || truncated_[i]) live_[i] = 0;
      reward_[i] = 0.0;
      terminated_[i] = truncated_[i] = 0;
    }
    step_agents(action_row);
    StepResult r;
    bool any_live = false, all_truncated = true, any_remaining = false;
    for (size_t i = 0; i < n_agents(); ++i) {
      if (!live_[i]) {
        reward_[i] = 0.0;
        terminated_[i] = truncated_[i] = 0;
        continue;
      }
      any_live = true;
      r.reward += reward_[i];
      all_truncated = all_truncated && truncated_[i];
      any_remaining = any_remaining || !(terminated_[i] || truncated_[i]);
    }
    r.truncated = any_live && all_truncated;
    r.terminated = !any_remaining && !r.truncated;
    return r;
  }

  // The four per-agent arrays (agent_reward, agent_terminated, agent_truncated, agent_live), then
  // the task's extra infos.
  void write_info(void* const* dst) const final {
    const size_t n = n_agents();
    std::copy(reward_.begin(), reward_.end(), static_cast<double*>(dst[0]));
    for (size_t i = 0; i < n; ++i) {
      static_cast<bool*>(dst[1])[i] = terminated_[i] != 0;
      static_cast<bool*>(dst[2])[i] = truncated_[i] != 0;
      static_cast<bool*>(dst[3])[i] = live_[i] != 0;
    }
    write_extra_info(dst + 4);
  }

 protected:
  // Start a new game (randomness from rng(), as every Env).
  virtual void reset_agents() = 0;
  // One step of every live agent: the action row as agents_action_space lays it out (an int64 per
  // agent when they act with Discrete spaces; else agent i's values at action_offset(i)).
  virtual void step_agents(const void* action_row) = 0;
  // The task's own info fields (declared after the four per-agent ones).
  virtual void write_extra_info(void* const* /*dst*/) const {}

  size_t n_agents() const { return live_.size(); }
  // Agent i is in PettingZoo's env.agents after the current step (live and neither flag set).
  bool remains(size_t i) const { return live_[i] && !terminated_[i] && !truncated_[i]; }

  std::vector<double> reward_;
  std::vector<uint8_t> terminated_, truncated_, live_;  // 0 / 1 (std::vector<bool> packs its bits)
};

}  // namespace envhive
