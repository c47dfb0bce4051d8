#include "mujoco.h"

#include <memory>
#include <string>

#include "ant.h"
#include "half_cheetah.h"
#include "hopper.h"
#include "humanoid.h"
#include "humanoid_standup.h"
#include "inverted_double_pendulum.h"
#include "inverted_pendulum.h"
#include "mujoco_env.h"
#include "pusher.h"
#include "reacher.h"
#include "swimmer.h"
#include "walker2d.h"

namespace envhive {
namespace {

using namespace envhive::mujoco;

// Whether a task's -v5 env file makes its DEFAULT_CAMERA_CONFIG the default of the
// default_camera_config kwarg. InvertedDoublePendulum-v5 declares one but defaults the kwarg to None,
// so Gymnasium renders it with MuJoCo's plain free camera (its -v4 uses the config).
enum class V5Camera : bool { kConfig, kNone };

// The task as Gymnasium's -v4 and -v5 ids, with its default time limit and the DEFAULT_CAMERA_CONFIG
// of its env files (the same in both versions; Swimmer has none).
template <class E>
void add_both(TaskRegistry& registry, const std::string& name, int64_t max_steps, const std::string& doc,
              const ConfigTable& camera, V5Camera v5_camera = V5Camera::kConfig) {
  for (const bool v5 : {false, true}) {
    const std::string id = name + (v5 ? "-v5" : "-v4");
    register_task<E>(registry,
                     {.id = id,
                      .family = "mujoco",
                      .doc = doc + " (Gymnasium " + id + ").",
                      .max_episode_steps = max_steps,
                      .reset_options = physics_reset_options()},
                     MujocoVariant{.v5 = v5, .camera = v5 && v5_camera == V5Camera::kNone ? ConfigTable{} : camera});
  }
}

// A walker's camera: it tracks body `body` from `distance`, looking at (0, 0, z) from 20 degrees up.
ConfigTable walker_camera(double body, double distance, double z) {
  return {{"trackbodyid", {body}}, {"distance", {distance}}, {"lookat", {0.0, 0.0, z}}, {"elevation", {-20.0}}};
}

}  // namespace

void register_mujoco(TaskRegistry& registry, const FamilyData& data) {
  install_handlers();
  // Without Gymnasium's assets only absolute xml_file paths work, and the error says so.
  set_assets_dir(data.has("assets_dir") ? data.value("assets_dir") : std::string());
  add_both<AntEnv>(registry, "Ant", 1000, "Make a four-legged ant run forward", {{"distance", {4.0}}});
  add_both<HalfCheetahEnv>(registry, "HalfCheetah", 1000, "Make a 2D cheetah run forward", {{"distance", {4.0}}});
  add_both<HopperEnv>(registry, "Hopper", 1000, "Make a one-legged 2D hopper hop forward without falling",
                      walker_camera(2, 3.0, 1.15));
  add_both<HumanoidEnv>(registry, "Humanoid", 1000, "Make a 3D humanoid walk forward without falling",
                        walker_camera(1, 4.0, 2.0));
  add_both<HumanoidStandupEnv>(registry, "HumanoidStandup", 1000, "Make a humanoid lying on the ground stand up",
                               walker_camera(1, 4.0, 0.8925));
  add_both<InvertedPendulumEnv>(registry, "InvertedPendulum", 1000, "Balance a pole on a cart",
                                {{"trackbodyid", {0.0}}, {"distance", {2.04}}});
  add_both<InvertedDoublePendulumEnv>(
      registry, "InvertedDoublePendulum", 1000, "Balance two stacked poles on a cart",
      {{"trackbodyid", {0.0}}, {"distance", {4.1225}}, {"lookat", {0.0, 0.0, 0.12250000000000005}}},
      V5Camera::kNone);
  add_both<PusherEnv>(registry, "Pusher", 100, "Push an object to a goal with a 7-DoF arm",
                      {{"trackbodyid", {-1.0}}, {"distance", {4.0}}});
  add_both<ReacherEnv>(registry, "Reacher", 50, "Move a two-joint arm's fingertip to a random target",
                       {{"trackbodyid", {0.0}}});
  add_both<SwimmerEnv>(registry, "Swimmer", 1000, "Make a three-link swimmer move forward in a viscous fluid", {});
  add_both<Walker2dEnv>(registry, "Walker2d", 1000, "Make a 2D biped walk forward without falling",
                        walker_camera(2, 4.0, 1.15));
}

}  // namespace envhive
