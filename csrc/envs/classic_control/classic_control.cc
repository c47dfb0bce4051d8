#include "classic_control.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "acrobot.h"
#include "cartpole.h"
#include "mountain_car.h"
#include "mountain_car_continuous.h"
#include "pendulum.h"

namespace envhive {
namespace {

using namespace classic_control;

// A Gymnasium bound given as a float32 array: the float32-rounded value, kept as a double. The
// volatile keeps GCC 12's SLP vectorizer from dropping the double -> float -> double round trip.
double f32(double v) {
  volatile float rounded = static_cast<float>(v);
  return static_cast<double>(rounded);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

ConfigField max_steps_field(int64_t steps) {
  return {"max_episode_steps", steps,
          "Episode length after which the pool truncates (Gymnasium's registered TimeLimit); 0 "
          "disables it."};
}

// Box(-high, high, dtype=float32) with `high` a float32 array.
SpaceSpec symmetric_f32_box(const std::vector<double>& high_values) {
  std::vector<double> low, high;
  for (double h : high_values) {
    high.push_back(f32(h));
    low.push_back(-f32(h));
  }
  return SpaceSpec::box(DType::kFloat32, {static_cast<int64_t>(high_values.size())}, low, high);
}

void add_cartpole(std::vector<TaskDef>& registry, const std::string& id, int64_t max_steps) {
  TaskDef t;
  t.id = id;
  t.family = "classic_control";
  t.doc = "Balance a pole on a cart by pushing it left or right (Gymnasium " + id + ").";
  t.config = {
      {"sutton_barto_reward", false,
       "Reward 0 per non-terminal step and -1 on termination instead of +1 per step."},
      max_steps_field(max_steps),
  };
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = symmetric_f32_box({CartPoleEnv::kXThreshold * 2, kInf,
                                       CartPoleEnv::kThetaThreshold * 2, kInf});
    s.action = SpaceSpec::discrete(2);
    return s;
  };
  t.make = [](const Config& c, int /*env_id*/) -> std::unique_ptr<Env> {
    return std::make_unique<CartPoleEnv>(c.flag("sutton_barto_reward"));
  };
  registry.push_back(std::move(t));
}

void add_pendulum(std::vector<TaskDef>& registry) {
  TaskDef t;
  t.id = "Pendulum-v1";
  t.family = "classic_control";
  t.doc = "Swing a frictionless pendulum upright and hold it there with bounded torque.";
  t.config = {
      {"g", 10.0, "Acceleration of gravity."},
      max_steps_field(200),
  };
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = symmetric_f32_box({1.0, 1.0, PendulumEnv::kMaxSpeed});
    s.action = SpaceSpec::box(DType::kFloat32, {1}, {f32(-PendulumEnv::kMaxTorque)},
                              {f32(PendulumEnv::kMaxTorque)});
    return s;
  };
  t.make = [](const Config& c, int /*env_id*/) -> std::unique_ptr<Env> {
    return std::make_unique<PendulumEnv>(c.real("g"));
  };
  registry.push_back(std::move(t));
}

SpaceSpec mountain_car_obs_space(double min_position, double max_position, double max_speed) {
  return SpaceSpec::box(DType::kFloat32, {2}, {f32(min_position), f32(-max_speed)},
                        {f32(max_position), f32(max_speed)});
}

void add_mountain_car(std::vector<TaskDef>& registry) {
  TaskDef t;
  t.id = "MountainCar-v0";
  t.family = "classic_control";
  t.doc = "Drive an underpowered car up a hill by rocking it back and forth (3 discrete actions).";
  t.config = {
      {"goal_velocity", 0.0, "Minimum velocity at the goal position for the episode to end."},
      max_steps_field(200),
  };
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = mountain_car_obs_space(MountainCarEnv::kMinPosition,
                                           MountainCarEnv::kMaxPosition, MountainCarEnv::kMaxSpeed);
    s.action = SpaceSpec::discrete(3);
    return s;
  };
  t.make = [](const Config& c, int /*env_id*/) -> std::unique_ptr<Env> {
    return std::make_unique<MountainCarEnv>(c.real("goal_velocity"));
  };
  registry.push_back(std::move(t));
}

void add_mountain_car_continuous(std::vector<TaskDef>& registry) {
  using E = MountainCarContinuousEnv;
  TaskDef t;
  t.id = "MountainCarContinuous-v0";
  t.family = "classic_control";
  t.doc = "Drive an underpowered car up a hill with a continuous force, paying for effort.";
  t.config = {
      {"goal_velocity", 0.0, "Minimum velocity at the goal position for the episode to end."},
      max_steps_field(999),
  };
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = mountain_car_obs_space(E::kMinPosition, E::kMaxPosition, E::kMaxSpeed);
    s.action = SpaceSpec::box(DType::kFloat32, {1}, {f32(E::kMinAction)}, {f32(E::kMaxAction)});
    return s;
  };
  t.make = [](const Config& c, int /*env_id*/) -> std::unique_ptr<Env> {
    return std::make_unique<E>(c.real("goal_velocity"));
  };
  registry.push_back(std::move(t));
}

void add_acrobot(std::vector<TaskDef>& registry) {
  TaskDef t;
  t.id = "Acrobot-v1";
  t.family = "classic_control";
  t.doc = "Swing the free end of a two-link chain above a line by torquing the middle joint.";
  t.config = {max_steps_field(500)};
  t.spaces = [](const Config&) {
    Spaces s;
    s.observation = symmetric_f32_box(
        {1.0, 1.0, 1.0, 1.0, AcrobotEnv::kMaxVel1, AcrobotEnv::kMaxVel2});
    s.action = SpaceSpec::discrete(3);
    return s;
  };
  t.make = [](const Config&, int /*env_id*/) -> std::unique_ptr<Env> { return std::make_unique<AcrobotEnv>(); };
  registry.push_back(std::move(t));
}

}  // namespace

void register_classic_control(std::vector<TaskDef>& registry) {
  add_cartpole(registry, "CartPole-v0", 200);
  add_cartpole(registry, "CartPole-v1", 500);
  add_pendulum(registry);
  add_mountain_car(registry);
  add_mountain_car_continuous(registry);
  add_acrobot(registry);
}

}  // namespace envhive
