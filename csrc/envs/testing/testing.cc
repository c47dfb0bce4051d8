#include "testing.h"

#include "dummy.h"
#include "multi_agent_dummy.h"
#include "rng_draws.h"
#include "structured_dummy.h"

namespace envhive {

void register_testing(TaskRegistry& registry) {
  register_task<DummyEnv>(registry, {.id = "Dummy-v0",
                                     .family = "testing",
                                     .doc = "Engine test env: obs = [reset draw, elapsed, last action], reward = action.",
                                     .hidden = true});
  register_task<StructuredDummyEnv>(
      registry, {.id = "StructuredDummy-v0",
                 .family = "testing",
                 .doc = "Engine test env with a Dict observation of every leaf kind (Box, Discrete, Text, Tuple).",
                 .hidden = true});
  register_task<RngDrawsEnv>(registry, {.id = "RngDraws-v0",
                                        .family = "testing",
                                        .doc = "Engine test env: a program of numpy Generator calls, drawn at reset.",
                                        .hidden = true});
  register_task<MultiAgentDummyEnv>(
      registry, {.id = "MultiAgentDummy-v0",
                 .family = "testing",
                 .doc = "Engine test env of several agents that leave at different steps, with different spaces.",
                 .hidden = true});
}

}  // namespace envhive
