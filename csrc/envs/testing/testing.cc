#include "testing.h"

#include "dummy.h"

namespace envhive {

void register_testing(std::vector<TaskDef>& registry) {
  TaskDef t;
  t.id = "Dummy-v0";
  t.family = "testing";
  t.doc = "Engine test env: obs = [reset draw, elapsed, last action], reward = action.";
  t.config = {
      {"max_episode_steps", int64_t{0}, "time limit (0: none)"},
      {"episode_length", int64_t{10}, "terminate after this many steps (0: never)"},
      {"delays_us", std::vector<double>{}, "per-env busy-wait per step in microseconds, env i uses [i % len]"},
      {"fail_env", int64_t{-1}, "env id that raises inside step (-1: none)"},
      {"fail_step", int64_t{-1}, "episode step at which fail_env raises"},
  };
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = SpaceSpec::box(DType::kFloat64, {3}, {-1.0}, {1e9});
    s.action = SpaceSpec::discrete(1000);
    s.infos = {InfoSpec{"last_action", DType::kInt64, {}}};
    return s;
  };
  t.make = [](const Config& c, int env_id) { return std::make_unique<DummyEnv>(c, env_id); };
  registry.push_back(std::move(t));
}

}  // namespace envhive
