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

// One task id: E's config for the version plus the time limit; spaces and envs from the model
// named by the config (loaded once and shared, see load_model).
template <class E>
void add(std::vector<TaskDef>& registry, const std::string& name, bool v5, int64_t max_steps, const std::string& doc) {
  TaskDef t;
  t.id = name + (v5 ? "-v5" : "-v4");
  t.family = "mujoco";
  t.doc = doc + " (Gymnasium " + t.id + ").";
  t.config = E::config(v5);
  t.config.push_back({"max_episode_steps", max_steps,
                      "Episode length after which the pool truncates (Gymnasium's registered TimeLimit); 0 "
                      "disables it."});
  t.reset_options = physics_reset_options();
  t.spaces = [v5](const Config& c) {
    const auto p = E::params(c, v5);
    const ModelPtr model = load_model(p.common.xml_file);
    return E::spaces(*model, p);
  };
  t.make = [v5](const Config& c, int /*env_id*/) -> std::unique_ptr<Env> {
    const auto p = E::params(c, v5);
    return std::make_unique<E>(load_model(p.common.xml_file), p);
  };
  registry.push_back(std::move(t));
}

template <class E>
void add_both(std::vector<TaskDef>& registry, const std::string& name, int64_t max_steps, const std::string& doc) {
  add<E>(registry, name, false, max_steps, doc);
  add<E>(registry, name, true, max_steps, doc);
}

}  // namespace

void register_mujoco(std::vector<TaskDef>& registry, const std::string& assets_dir) {
  install_handlers();
  set_assets_dir(assets_dir);
  add_both<AntEnv>(registry, "Ant", 1000, "Make a four-legged ant run forward");
  add_both<HalfCheetahEnv>(registry, "HalfCheetah", 1000, "Make a 2D cheetah run forward");
  add_both<HopperEnv>(registry, "Hopper", 1000, "Make a one-legged 2D hopper hop forward without falling");
  add_both<HumanoidEnv>(registry, "Humanoid", 1000, "Make a 3D humanoid walk forward without falling");
  add_both<HumanoidStandupEnv>(registry, "HumanoidStandup", 1000, "Make a humanoid lying on the ground stand up");
  add_both<InvertedPendulumEnv>(registry, "InvertedPendulum", 1000, "Balance a pole on a cart");
  add_both<InvertedDoublePendulumEnv>(registry, "InvertedDoublePendulum", 1000,
                                      "Balance two stacked poles on a cart");
  add_both<PusherEnv>(registry, "Pusher", 100, "Push an object to a goal with a 7-DoF arm");
  add_both<ReacherEnv>(registry, "Reacher", 50, "Move a two-joint arm's fingertip to a random target");
  add_both<SwimmerEnv>(registry, "Swimmer", 1000, "Make a three-link swimmer move forward in a viscous fluid");
  add_both<Walker2dEnv>(registry, "Walker2d", 1000, "Make a 2D biped walk forward without falling");
}

}  // namespace envhive
