#include "dmc.h"

#include <cctype>
#include <iterator>
#include <stdexcept>
#include <string>

#include "../mujoco/mujoco_env.h"
#include "acrobot.h"
#include "ball_in_cup.h"
#include "cartpole.h"
#include "cheetah.h"
#include "dog.h"
#include "dog_fetch.h"
#include "finger.h"
#include "fish.h"
#include "hopper.h"
#include "humanoid.h"
#include "lqr.h"
#include "manipulator.h"
#include "pendulum.h"
#include "point_mass.h"
#include "quadruped.h"
#include "quadruped_escape.h"
#include "quadruped_fetch.h"
#include "reacher.h"
#include "stacker.h"
#include "swimmer.h"
#include "walker.h"
#include "dmc_env.h"

namespace envhive {
namespace {

using namespace envhive::dmc;

// EnvPool's id of a suite task: each '_'-separated word of domain and task capitalised
// (ball_in_cup/catch -> BallInCupCatch-v1, humanoid_CMU/run -> HumanoidCMURun-v1).
std::string envpool_id(const DmcTask& t) {
  std::string id;
  for (const std::string* part : {&t.domain, &t.task}) {
    bool start = true;
    for (const char c : *part) {
      if (c == '_') {
        start = true;
        continue;
      }
      id += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      start = false;
    }
  }
  return id + "-v1";
}

template <class E>
void add(TaskRegistry& registry, const DmcTask& t, const std::string& doc) {
  const std::string shimmy = "dm_control/" + t.domain + "-" + t.task + "-v0";
  for (const std::string& id : {envpool_id(t), shimmy})
    register_task<E>(registry,
                     {.id = id,
                      .family = "dmc",
                      .doc = doc + " (dm_control " + t.domain + "/" + t.task + ").",
                      .max_seed = 0xffffffffu},  // numpy.random.RandomState(seed)
                     t);
}

}  // namespace

void register_dmc(TaskRegistry& registry, ModelSource source) {
  mujoco::install_handlers();
  set_model_source(std::move(source));
  add<CartpoleEnv>(registry, {"cartpole", "balance", 10}, "Balance a pole on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "balance_sparse", 10}, "Balance a pole on a cart, sparse reward");
  add<CartpoleEnv>(registry, {"cartpole", "swingup", 10}, "Swing up and balance a pole on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "swingup_sparse", 10}, "Swing up and balance a pole on a cart, sparse reward");
  add<CartpoleEnv>(registry, {"cartpole", "two_poles", 10}, "Swing up and balance two chained poles on a cart");
  add<CartpoleEnv>(registry, {"cartpole", "three_poles", 10, 1, {num_poles_field(3), sparse_field()}},
                   "Swing up and balance three chained poles on a cart");
  add<WalkerEnv>(registry, {"walker", "stand", 25, 10}, "Make a planar biped stand up");
  add<WalkerEnv>(registry, {"walker", "walk", 25, 10}, "Make a planar biped walk forward");
  add<WalkerEnv>(registry, {"walker", "run", 25, 10}, "Make a planar biped run forward");
  add<CheetahEnv>(registry, {"cheetah", "run", 10}, "Make a planar cheetah run forward");
  add<FingerEnv>(registry, {"finger", "spin", 20, 2}, "Spin a hinged body with a planar finger");
  add<FingerEnv>(registry, {"finger", "turn_easy", 20, 2}, "Turn a hinged body to a large target angle with a finger");
  add<FingerEnv>(registry, {"finger", "turn_hard", 20, 2}, "Turn a hinged body to a small target angle with a finger");
  add<ReacherEnv>(registry, {"reacher", "easy", 20}, "Reach a large random target with a two-link arm");
  add<ReacherEnv>(registry, {"reacher", "hard", 20}, "Reach a small random target with a two-link arm");
  add<BallInCupEnv>(registry, {"ball_in_cup", "catch", 20, 10}, "Swing a ball on a string into a cup");
  add<HopperEnv>(registry, {"hopper", "stand", 20, 4}, "Make a one-legged hopper stand upright");
  add<HopperEnv>(registry, {"hopper", "hop", 20, 4}, "Make a one-legged hopper hop forward");
  add<PendulumEnv>(registry, {"pendulum", "swingup", 20}, "Swing up and balance a pendulum");
  add<AcrobotEnv>(registry, {"acrobot", "swingup", 10}, "Swing up a two-link underactuated arm");
  add<AcrobotEnv>(registry, {"acrobot", "swingup_sparse", 10}, "Swing up a two-link underactuated arm, sparse reward");
  add<PointMassEnv>(registry, {"point_mass", "easy", 20}, "Move a point mass to a target");
  add<PointMassEnv>(registry, {"point_mass", "hard", 20}, "Move a point mass to a target through mixed controls");
  add<HumanoidEnv>(registry, {"humanoid", "stand", 25, 5}, "Make a 3D humanoid stand up");
  add<HumanoidEnv>(registry, {"humanoid", "walk", 25, 5}, "Make a 3D humanoid walk");
  add<HumanoidEnv>(registry, {"humanoid", "run", 25, 5}, "Make a 3D humanoid run");
  add<HumanoidEnv>(registry, {"humanoid", "run_pure_state", 25, 5}, "Make a 3D humanoid run, observing its raw state");
  add<HumanoidEnv>(registry, {"humanoid_CMU", "stand", 20, 10}, "Make the CMU humanoid stand up");
  add<HumanoidEnv>(registry, {"humanoid_CMU", "walk", 20, 10}, "Make the CMU humanoid walk");
  add<HumanoidEnv>(registry, {"humanoid_CMU", "run", 20, 10}, "Make the CMU humanoid run");
  add<FishEnv>(registry, {"fish", "upright", 40, 10}, "Make a 3D fish right itself");
  add<FishEnv>(registry, {"fish", "swim", 40, 10}, "Make a 3D fish swim to a random target");
  add<SwimmerEnv>(registry, {"swimmer", "swimmer6", 30, 15}, "Make a six-link planar swimmer reach a target");
  add<SwimmerEnv>(registry, {"swimmer", "swimmer15", 30, 15}, "Make a fifteen-link planar swimmer reach a target");
  add<LqrEnv>(registry, {"lqr", "lqr_2_1", kInf}, "Drive a random chain of two springs (one actuated) to rest");
  add<LqrEnv>(registry, {"lqr", "lqr_6_2", kInf}, "Drive a random chain of six springs (two actuated) to rest");
  add<ManipulatorEnv>(registry, {"manipulator", "bring_ball", 10, 10, {fully_observable_field()}}, "Bring a ball to a target with a planar arm");
  add<ManipulatorEnv>(registry, {"manipulator", "bring_peg", 10, 10, {fully_observable_field()}}, "Bring a peg to a target with a planar arm");
  add<ManipulatorEnv>(registry, {"manipulator", "insert_ball", 10, 10, {fully_observable_field()}}, "Put a ball into a cup with a planar arm");
  add<ManipulatorEnv>(registry, {"manipulator", "insert_peg", 10, 10, {fully_observable_field()}}, "Insert a peg into a slot with a planar arm");
  add<StackerEnv>(registry, {"stacker", "stack_2", 10, 10, {fully_observable_field()}}, "Stack two boxes with a planar arm");
  add<StackerEnv>(registry, {"stacker", "stack_4", 10, 10, {fully_observable_field()}}, "Stack four boxes with a planar arm");
  add<QuadrupedMoveEnv>(registry, {"quadruped", "walk", 20, 4}, "Make a 3D quadruped walk");
  add<QuadrupedMoveEnv>(registry, {"quadruped", "run", 20, 4}, "Make a 3D quadruped run");
  add<QuadrupedEscapeEnv>(registry, {"quadruped", "escape", 20, 4}, "Make a 3D quadruped climb out of a bumpy bowl");
  add<QuadrupedFetchEnv>(registry, {"quadruped", "fetch", 20, 4}, "Make a 3D quadruped bring a ball to a target");
  add<DogEnv>(registry, {"dog", "stand", 15, 3}, "Make a 3D dog stand up");
  add<DogEnv>(registry, {"dog", "walk", 15, 3}, "Make a 3D dog walk");
  add<DogEnv>(registry, {"dog", "trot", 15, 3}, "Make a 3D dog trot");
  add<DogEnv>(registry, {"dog", "run", 15, 3}, "Make a 3D dog run");
  add<DogFetchEnv>(registry, {"dog", "fetch", 15, 3}, "Make a 3D dog fetch a thrown ball");
}

void register_dmc(TaskRegistry& registry, const FamilyData& data) {
  register_dmc(registry, [&data](const std::string& domain, const std::string& task, const ModelKwargs& kwargs) {
    FamilyData::Files files = data.resolve(domain + "/" + task, kwargs);
    if (files.empty()) throw std::runtime_error("no model files for dm_control " + domain + "/" + task);
    ModelFiles out{std::move(files.front().second), {}};
    out.assets.assign(std::make_move_iterator(files.begin() + 1), std::make_move_iterator(files.end()));
    return out;
  });
}

}  // namespace envhive
