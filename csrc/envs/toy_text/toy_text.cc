#include "toy_text.h"

#include "blackjack.h"
#include "catch.h"
#include "cliff_walking.h"
#include "frozen_lake.h"
#include "nchain.h"
#include "taxi.h"

namespace envhive {

void register_toy_text(TaskRegistry& registry, const FamilyData& data) {
  const std::string img_dir = data.has("images_dir") ? data.value("images_dir") : std::string();
  using namespace toy_text;
  const std::string family = "toy_text";
  // The render images, as files under Gymnasium's img/ folder.
  auto files = [&img_dir](std::vector<std::pair<std::string, std::string>> images) {
    for (auto& [name, path] : images) path = img_dir.empty() ? std::string() : img_dir + "/" + path;
    return images;
  };
  register_task<FrozenLakeEnv>(
      registry,
      {.id = "FrozenLake-v1",
       .family = family,
       .doc = "Cross a frozen lake from start to goal without falling into a hole, maybe slipping (4x4 map).",
       .max_episode_steps = 100,
       .render_images = files(frozen_lake_images())},
      std::string("4x4"));
  register_task<FrozenLakeEnv>(
      registry,
      {.id = "FrozenLake8x8-v1",
       .family = family,
       .doc = "Cross a frozen lake from start to goal without falling into a hole, maybe slipping (8x8 map).",
       .max_episode_steps = 200,
       .render_images = files(frozen_lake_images())},
      std::string("8x8"));
  register_task<TaxiEnv>(registry, {.id = "Taxi-v4",
                                    .family = family,
                                    .doc = "Pick a passenger up on a 5x5 grid and drop them off at their destination.",
                                    .max_episode_steps = 200,
                                    .render_images = files(taxi_images())});
  register_task<CliffWalkingEnv>(registry,
                                 {.id = "CliffWalking-v1",
                                  .family = family,
                                  .doc = "Walk from start to goal along a cliff edge without stepping off it.",
                                  .render_images = files(cliff_walking_images())},
                                 false);
  register_task<CliffWalkingEnv>(registry,
                                 {.id = "CliffWalkingSlippery-v1",
                                  .family = family,
                                  .doc = "Walk from start to goal along a cliff edge, slipping sideways a third of the time.",
                                  .render_images = files(cliff_walking_images())},
                                 true);
  // EnvPool's own toy-text tasks (no Gymnasium reference: EnvPool 1.2.5's code defines them).
  register_task<CatchEnv>(registry, {.id = "Catch-v0",
                                     .family = family,
                                     .doc = "Catch a falling ball with a paddle (bsuite's catch, as EnvPool runs it)."});
  register_task<NChainEnv>(registry, {.id = "NChain-v0",
                                      .family = family,
                                      .doc = "Walk a chain of five states for a far reward, slipping 20% of the time "
                                             "(gym 0.20's NChain, as EnvPool runs it).",
                                      .max_episode_steps = 1000});
  register_task<BlackjackEnv>(registry, {.id = "Blackjack-v1",
                                         .family = family,
                                         .doc = "Beat the dealer at blackjack: hit or stick (Sutton and Barto's rules).",
                                         .render_images = files(blackjack_images())});
}

}  // namespace envhive
