#include "crafter.h"

#include <utility>

#include "crafter_env.h"

namespace envhive::crafter {

void register_tasks(TaskRegistry& registry, std::shared_ptr<const TextureSet> textures) {
  register_task<CrafterEnv>(registry,
                            {.id = "CrafterReward-v1",
                             .family = "crafter",
                             .doc = "Crafter: survive and unlock 22 achievements in a 2D open world (reward: +1 per "
                                    "first unlock, +-0.1 per health point).",
                             .max_episode_steps = 10000},
                            textures, true);
  register_task<CrafterEnv>(registry,
                            {.id = "CrafterNoReward-v1",
                             .family = "crafter",
                             .doc = "Crafter without reward (the achievements are still reported in info).",
                             .max_episode_steps = 10000},
                            std::move(textures), false);
}

}  // namespace envhive::crafter
