#include "testing.h"

#include "dummy.h"

namespace envhive {

void register_testing(TaskRegistry& registry) {
  register_task<DummyEnv>(registry, {.id = "Dummy-v0",
                                     .family = "testing",
                                     .doc = "Engine test env: obs = [reset draw, elapsed, last action], reward = action.",
                                     .hidden = true});
}

}  // namespace envhive
