#include "minigrid.h"

#include <string>

#include "doorkey.h"
#include "empty.h"

namespace envhive {

namespace {
using namespace minigrid;

const std::string kFamily = "minigrid";

template <class E>
void add(TaskRegistry& registry, const std::string& id, int64_t max_steps, const std::string& doc,
         const typename E::Params& params) {
  register_task<E>(registry, {.id = id, .family = kFamily, .doc = doc, .max_episode_steps = max_steps}, params);
}

std::string sized(const char* name, int size) {
  return std::string("MiniGrid-") + name + "-" + std::to_string(size) + "x" + std::to_string(size) + "-v0";
}
}  // namespace

void register_minigrid(TaskRegistry& registry) {
  for (int size : {5, 6, 8, 16})
    add<EmptyEnv>(registry, sized("Empty", size), 4 * size * size, "Reach the goal square of an empty room.",
                  {size, false});
  for (int size : {5, 6})
    add<EmptyEnv>(registry, sized("Empty-Random", size), 4 * size * size,
                  "Reach the goal square of an empty room from a random start.", {size, true});
  for (int size : {5, 6, 8, 16})
    add<DoorKeyEnv>(registry, sized("DoorKey", size), 10 * size * size,
                    "Pick up the key, unlock the door and reach the goal behind it.", {size});
}

}  // namespace envhive
