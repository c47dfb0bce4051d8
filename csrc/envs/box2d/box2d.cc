#include "box2d.h"

#include "bipedal_walker.h"
#include "car_racing.h"
#include "lunar_lander.h"

namespace envhive {

void register_box2d(TaskRegistry& registry) {
  using namespace box2d;
  const std::string family = "box2d";
  register_task<LunarLanderEnv>(
      registry,
      {.id = "LunarLander-v3",
       .family = family,
       .doc = "Land a rocket on a pad by firing its main and side engines (Box2D; 4 discrete actions).",
       .max_episode_steps = 1000},
      false);
  register_task<LunarLanderEnv>(
      registry,
      {.id = "LunarLanderContinuous-v3",
       .family = family,
       .doc = "Land a rocket on a pad by throttling its main and side engines (Box2D; continuous actions).",
       .max_episode_steps = 1000},
      true);
  register_task<BipedalWalkerEnv>(
      registry,
      {.id = "BipedalWalker-v3",
       .family = family,
       .doc = "Walk a two-legged robot over rough terrain by torquing its hips and knees (Box2D; lidar).",
       .max_episode_steps = 1600},
      false);
  register_task<BipedalWalkerEnv>(
      registry,
      {.id = "BipedalWalkerHardcore-v3",
       .family = family,
       .doc = "Walk a two-legged robot over stumps, stairs and pits by torquing its hips and knees (Box2D).",
       .max_episode_steps = 2000},
      true);
  register_task<CarRacingEnv>(
      registry, {.id = "CarRacing-v3",
                 .family = family,
                 .doc = "Race a top-down car around a random track from its 96x96 pixels (Box2D; pygame's frame).",
                 .max_episode_steps = 1000,
                 .reset_options = {{"randomize", "with domain_randomize: draw new colours at this reset (default "
                                                 "True)"}},
                 .render_images = CarRacingText::images(),
                 .images_at_start = true});
}

}  // namespace envhive
