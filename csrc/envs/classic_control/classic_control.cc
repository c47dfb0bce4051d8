#include "classic_control.h"

#include "acrobot.h"
#include "cartpole.h"
#include "mountain_car.h"
#include "mountain_car_continuous.h"
#include "pendulum.h"

namespace envhive {

void register_classic_control(TaskRegistry& registry, const FamilyData& data) {
  const std::string assets_dir = data.has("images_dir") ? data.value("images_dir") : std::string();
  using namespace classic_control;
  const std::string family = "classic_control";
  for (const auto& [id, steps] : {std::pair{"CartPole-v0", 200}, std::pair{"CartPole-v1", 500}})
    register_task<CartPoleEnv>(registry, {.id = id,
                                          .family = family,
                                          .doc = std::string("Balance a pole on a cart by pushing it left or right "
                                                             "(Gymnasium ") + id + ").",
                                          .max_episode_steps = steps});
  register_task<PendulumEnv>(
      registry, {.id = "Pendulum-v1",
                 .family = family,
                 .doc = "Swing a frictionless pendulum upright and hold it there with bounded torque.",
                 .max_episode_steps = 200,
                 .render_images = {{PendulumEnv::kArrowImage, assets_dir.empty() ? "" : assets_dir + "/clockwise.png"}}});
  register_task<MountainCarEnv>(
      registry, {.id = "MountainCar-v0",
                 .family = family,
                 .doc = "Drive an underpowered car up a hill by rocking it back and forth (3 discrete actions).",
                 .max_episode_steps = 200});
  register_task<MountainCarContinuousEnv>(
      registry, {.id = "MountainCarContinuous-v0",
                 .family = family,
                 .doc = "Drive an underpowered car up a hill with a continuous force, paying for effort.",
                 .max_episode_steps = 999});
  register_task<AcrobotEnv>(
      registry, {.id = "Acrobot-v1",
                 .family = family,
                 .doc = "Swing the free end of a two-link chain above a line by torquing the middle joint.",
                 .max_episode_steps = 500});
}

}  // namespace envhive
