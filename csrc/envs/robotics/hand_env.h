// Gymnasium-Robotics' Shadow Dexterous Hand (shadow_dexterous_hand/hand_env.py MujocoHandEnv): 20
// actuators in absolute position control, ctrl = clip(centre + action * half-range), 20 physics
// steps a step; the robot's joints (named robot*) in the observation. HandReach (hand_reach.cc) and
// the manipulation tasks (hand_manipulate.cc) build on it.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "robot_env.h"

namespace envhive::robotics {

class HandEnv : public RobotEnv {
 public:
  // Observation {achieved_goal, desired_goal, observation} and the 20 float32 actions in [-1, 1];
  // info is_success (float32).
  static Spaces hand_spaces(int64_t goal_size, int64_t obs_size);

 protected:
  explicit HandEnv(ModelPtr model);
  // MujocoHandEnv._set_action (absolute control) of 20 float64 values.
  void set_action(const double* a);
  // BaseRobotEnv.step's clip of a float32 action, then set_action and the 20 substeps.
  void act(const void* action);
  // robot_get_obs: qpos then qvel of the joints named robot*, in id order.
  double* put_robot_state(double* out) const;

 private:
  std::vector<int> robot_qpos_, robot_dof_;
  std::vector<double> center_, half_range_;
};

}  // namespace envhive::robotics
