// The module's tasks: envhive_add_family(... REGISTER_FUNCTION mypkg::register_tasks) calls this
// once, when envhive first loads the module (and when the build writes its task manifest).
#include "cartpole.h"

namespace mypkg {

void register_tasks(envhive::TaskRegistry& registry) {
  envhive::register_task<CartPole>(
      registry, {.id = "mypkg/CartPole-v1",  // a plug-in's ids carry its namespace
                 .family = "mypkg",
                 .doc = "Balance a pole on a cart by pushing it left or right (Gymnasium CartPole-v1, in C++).",
                 .max_episode_steps = 500,
                 .reset_options = {{"low", "lower bound of the uniform start state (default -0.05)"},
                                   {"high", "upper bound of the uniform start state (default 0.05)"}}});
}

}  // namespace mypkg
