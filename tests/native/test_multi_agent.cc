// Multi-agent declarations (core/multi_agent.h): the spaces built from the agents, what
// validate_spaces refuses, and the MultiAgentEnv base's live mask, team result and info columns.
#include <cstring>

#include "check.h"
#include "core/multi_agent.h"
#include "core/task.h"

namespace envhive {
namespace {

AgentSpec agent(const std::string& name, SpaceSpec observation, SpaceSpec action) {
  return AgentSpec{name, std::move(observation), std::move(action)};
}

const SpaceSpec kObs = SpaceSpec::box(DType::kFloat32, {2}, {-1.0}, {1.0});

TEST(multi_agent_spaces_builds_the_pool_spaces_from_the_agents) {
  Spaces s = multi_agent_spaces(
      {agent("a", kObs, SpaceSpec::discrete(3)), agent("b", SpaceSpec::discrete(4), SpaceSpec::discrete(2, 5))},
      {InfoSpec{"extra", DType::kInt64, {}}});
  validate_spaces(s, "X");
  CHECK(s.observation.kind == SpaceSpec::Kind::kDict);
  CHECK_EQ(s.observation.items[1].first, std::string("b"));
  CHECK(s.action.kind == SpaceSpec::Kind::kBox && s.action.dtype == DType::kInt64);
  CHECK_EQ(s.action.shape[0], int64_t{2});
  CHECK_EQ(s.action.low_at(1), 5.0);
  CHECK_EQ(s.action.high_at(1), 6.0);
  CHECK_EQ(s.infos.size(), size_t{5});
  CHECK_EQ(s.infos[3].name, std::string("agent_live"));
  CHECK_EQ(s.infos[4].name, std::string("extra"));
  // Boxes of one dtype: every agent's values, bounds concatenated, agent i at action_offset(i)
  Spaces b = multi_agent_spaces({agent("a", kObs, SpaceSpec::box(DType::kFloat32, {2}, {-1.0}, {1.0})),
                                 agent("b", kObs, SpaceSpec::box(DType::kFloat32, {3}, {0.0, 1.0, 2.0}, {5.0}))});
  validate_spaces(b, "X");
  CHECK_EQ(b.action.shape[0], int64_t{5});
  CHECK_EQ(b.action.low_at(4), 2.0);
  CHECK_EQ(b.action.high_at(2), 5.0);
  CHECK_EQ(action_offset(b.agents, 1), size_t{2});
}

TEST(agents_that_cannot_share_an_action_row_are_refused) {
  CHECK_THROWS(multi_agent_spaces({agent("a", kObs, SpaceSpec::discrete(3)), agent("b", kObs, kObs)}),
               "mix of Discrete and Box");
  const SpaceSpec f64 = SpaceSpec::box(DType::kFloat64, {2}, {0.0}, {1.0});
  CHECK_THROWS(multi_agent_spaces({agent("a", kObs, kObs), agent("b", kObs, f64)}), "different dtypes");
  CHECK_THROWS(multi_agent_spaces({}), "at least one agent");
}

TEST(validate_spaces_checks_the_agents) {
  const auto two = [] {
    return multi_agent_spaces({agent("a", kObs, SpaceSpec::discrete(3)), agent("b", kObs, SpaceSpec::discrete(3))});
  };
  Spaces s = two();
  s.agents[1].name = "a";
  CHECK_THROWS(validate_spaces(s, "X"), "'a' is declared twice");
  s = two();
  s.agents[0].name = "a/b";
  CHECK_THROWS(validate_spaces(s, "X"), "empty or holds '/'");
  s = two();
  std::swap(s.observation.items[0], s.observation.items[1]);
  CHECK_THROWS(validate_spaces(s, "X"), "Dict keyed by its agent names");
  s = two();
  s.action = SpaceSpec::discrete(3);
  CHECK_THROWS(validate_spaces(s, "X"), "agents' action row");
  s = two();
  s.infos.erase(s.infos.begin());
  CHECK_THROWS(validate_spaces(s, "X"), "agent_reward, agent_terminated");
  Spaces single{kObs, SpaceSpec::discrete(2), {{"agent_live", DType::kBool, {2}}}};
  CHECK_THROWS(validate_spaces(single, "X"), "reserved for multi-agent tasks");
}

// Three agents: agent i's reward is its action; agent 0 terminates at step 1, agent 2 is truncated at step 2.
class Trio final : public MultiAgentEnv {
 public:
  Trio() : MultiAgentEnv(3) {}
  void write_obs_leaves(void* const*) const override {}
  int64_t steps = 0;
  int64_t seen_live_at_step2 = -1;

 protected:
  void reset_agents() override { steps = 0; }
  void step_agents(const void* row) override {
    ++steps;
    const auto* a = static_cast<const int64_t*>(row);
    if (steps == 2) seen_live_at_step2 = live_[0] + 2 * live_[1] + 4 * live_[2];
    for (size_t i = 0; i < 3; ++i) reward_[i] = static_cast<double>(a[i]);  // also for agents not live
    if (steps == 1) terminated_[0] = 1;
    if (steps == 2) truncated_[2] = 1;
    if (steps == 3) terminated_[1] = 1;
  }
};

TEST(the_base_keeps_the_live_mask_and_reports_the_team) {
  Trio env;
  env.reset();
  const int64_t row[3] = {1, 10, 100};
  StepResult r = env.step(row);
  CHECK_EQ(r.reward, 111.0);
  CHECK(!r.terminated && !r.truncated);
  r = env.step(row);  // agent 0 left: its reward is not counted and is 0 in the info
  CHECK_EQ(env.seen_live_at_step2, int64_t{6});
  CHECK_EQ(r.reward, 110.0);
  CHECK(!r.terminated && !r.truncated);
  double reward[3];
  bool terminated[3], truncated[3], live[3];
  void* dst[4] = {reward, terminated, truncated, live};
  env.write_info(dst);
  CHECK_EQ(reward[0], 0.0);
  CHECK(!live[0] && live[1] && live[2] && truncated[2] && !terminated[0]);
  r = env.step(row);  // only agent 1 left, and it terminates: the game is over, terminated
  CHECK_EQ(r.reward, 10.0);
  CHECK(r.terminated && !r.truncated);
  env.reset();
  env.write_info(dst);
  CHECK(live[0] && live[1] && live[2] && reward[1] == 0.0);
}

}  // namespace
}  // namespace envhive
