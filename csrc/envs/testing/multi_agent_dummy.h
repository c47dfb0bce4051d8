// MultiAgentDummy-v0: an engine test task of several agents (csrc/core/multi_agent.h) that leave
// the game at different steps, observe spaces of different shapes, and act with Discrete or Box
// spaces, so every path of the multi-agent facades (envhive.multiagent: the live mask, per-agent
// spaces, padding, autoreset, the action row) is tested without a family. Not a benchmark.
//
// Agent i (named "agent_<i>") has k_i = 2 + i actions (3 for every agent with same_spaces). Each
// step it sees a cue c_i, drawn from the env's generator, in [0, k_i): its observation is
// [one-hot(c_i) (k_i values), elapsed steps] (float32, k_i + 1 values), and its reward for the
// next step is 1 when its Discrete action equals c_i (Box actions in [-1, 1]^k_i: the action's
// value at c_i). Agent i leaves after leave_after[i] steps: terminated, except the last agent when
// truncate_last (the task's own clock: a truncation). A policy that reads the cue earns 1 per step.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../core/multi_agent.h"
#include "../../core/task.h"

namespace envhive {

class MultiAgentDummyEnv final : public MultiAgentEnv {
 public:
  static constexpr int64_t kMaxAgents = 8;

  static std::vector<ConfigField> config() {
    return {
        {"leave_after", std::vector<double>{3, 5, 8},
         "agent i leaves after leave_after[i] steps (one entry per agent: 1 to 8 agents; 0: never)"},
        {"same_spaces", false, "every agent observes 4 values and has 3 actions (else agent i: 3 + i and 2 + i)"},
        {"continuous", false, "agents act with Box([-1, 1]^k) actions instead of Discrete(k)"},
        {"truncate_last", true, "the last agent's leaving is a truncation (the task's own clock), not a termination"},
        {"fail_env", int64_t{-1}, "env id that raises inside step (-1: none)"},
        {"fail_step", int64_t{-1}, "episode step at which fail_env raises"},
    };
  }

  static std::vector<int64_t> leave_steps(const Config& c) {
    const auto& leave = c.reals("leave_after");
    if (leave.empty() || static_cast<int64_t>(leave.size()) > kMaxAgents)
      throw std::invalid_argument("leave_after must hold 1 to " + std::to_string(kMaxAgents) + " entries, got " +
                                  std::to_string(leave.size()));
    std::vector<int64_t> out;
    for (double v : leave) {
      if (!(v >= 0 && v <= 1e9) || v != static_cast<double>(static_cast<int64_t>(v)))
        throw std::invalid_argument("leave_after entries must be whole numbers in [0, 1e9], got " +
                                    Config::format_real(v));
      out.push_back(static_cast<int64_t>(v));
    }
    return out;
  }

  static int64_t actions_of(const Config& c, size_t agent) {
    return c.flag("same_spaces") ? 3 : 2 + static_cast<int64_t>(agent);
  }

  static Spaces spaces(const Config& c) {
    const auto leave = leave_steps(c);
    std::vector<AgentSpec> agents;
    for (size_t i = 0; i < leave.size(); ++i) {
      const int64_t k = actions_of(c, i);
      AgentSpec agent;
      agent.name = "agent_" + std::to_string(i);
      agent.observation = SpaceSpec::box(DType::kFloat32, {k + 1}, {0.0}, {1e9});
      agent.action =
          c.flag("continuous") ? SpaceSpec::box(DType::kFloat32, {k}, {-1.0}, {1.0}) : SpaceSpec::discrete(k);
      agents.push_back(std::move(agent));
    }
    return multi_agent_spaces(std::move(agents), {InfoSpec{"team_step", DType::kInt64, {}}});
  }

  MultiAgentDummyEnv(const Config& c, int env_id)
      : MultiAgentEnv(leave_steps(c).size()),
        env_id_(env_id),
        leave_after_(leave_steps(c)),
        continuous_(c.flag("continuous")),
        truncate_last_(c.flag("truncate_last")),
        fail_env_(c.integer("fail_env")),
        fail_step_(c.integer("fail_step")) {
    for (size_t i = 0; i < n_agents(); ++i) {
      actions_.push_back(actions_of(c, i));
      offsets_.push_back(i == 0 ? 0 : offsets_.back() + (continuous_ ? actions_[i - 1] : 1));
    }
    cue_.assign(n_agents(), 0);
  }

 protected:
  void reset_agents() override {
    elapsed_ = 0;
    draw_cues();
  }

  void step_agents(const void* action_row) override {
    ++elapsed_;
    if (env_id_ == fail_env_ && elapsed_ == fail_step_)
      throw std::runtime_error("MultiAgentDummy-v0 failure injected at step " + std::to_string(elapsed_));
    for (size_t i = 0; i < n_agents(); ++i) {
      if (!live_[i]) continue;
      if (continuous_) {
        const float* a = static_cast<const float*>(action_row) + offsets_[i];
        reward_[i] = static_cast<double>(a[cue_[i]]);
      } else {
        reward_[i] = static_cast<const int64_t*>(action_row)[i] == cue_[i] ? 1.0 : 0.0;
      }
      if (leave_after_[i] > 0 && elapsed_ >= leave_after_[i]) {
        const bool truncation = truncate_last_ && i + 1 == n_agents();
        (truncation ? truncated_ : terminated_)[i] = 1;
      }
    }
    draw_cues();
  }

  // Public, as Env declares it (register_task checks which observation writer a task overrides).
 public:
  void write_obs_leaves(void* const* dst) const override {
    for (size_t i = 0; i < n_agents(); ++i) {
      auto* o = static_cast<float*>(dst[i]);
      for (int64_t k = 0; k < actions_[i]; ++k) o[k] = k == cue_[i] ? 1.0f : 0.0f;
      o[actions_[i]] = static_cast<float>(elapsed_);
    }
  }


 protected:
  void write_extra_info(void* const* dst) const override { *static_cast<int64_t*>(dst[0]) = elapsed_; }

 private:
  // A new cue for every agent in the game, in agent order (agents that left draw none).
  void draw_cues() {
    for (size_t i = 0; i < n_agents(); ++i)
      if (remains(i)) cue_[i] = rng().integers(0, actions_[i]);
  }

  int env_id_;
  std::vector<int64_t> leave_after_;
  bool continuous_, truncate_last_;
  int64_t fail_env_, fail_step_;
  std::vector<int64_t> actions_, offsets_, cue_;
  int64_t elapsed_ = 0;
};

}  // namespace envhive
