// Gymnasium-Robotics' Fetch tasks, v4 (fetch/fetch_env.py MujocoFetchEnv and its four tasks):
// a 7-DoF arm moved by a mocap body welded to its gripper, a goal sampled around the gripper's
// initial position, sparse (-1 / 0) or dense (-distance) rewards.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "robot_env.h"

namespace envhive::robotics {

// One Fetch task: the arguments its env class hands MujocoFetchEnv.__init__.
struct FetchTask {
  std::string xml;  // relative to the assets folder
  bool has_object = false;
  bool block_gripper = false;
  double gripper_extra_height = 0.0;
  bool target_in_the_air = false;
  std::array<double, 3> target_offset{};  // target_offset (a scalar 0.0 adds 0.0 to every coordinate)
  double obj_range = 0.15;
  double target_range = 0.15;
  double distance_threshold = 0.05;
  std::vector<std::pair<std::string, std::vector<double>>> initial_qpos;
  bool dense = false;  // the id's default reward_type
};

// What MujocoFetchEnv._env_setup computes once (the same for every env of a task): the model, the
// state _reset_sim restores, the gripper's initial position and the object's height.
struct FetchSetup {
  ModelPtr model;
  InitialState initial;
  std::array<double, 3> initial_gripper_xpos{};
  double height_offset = 0.0;
  int grip_site = -1, object_site = -1;
  int object_qposadr = -1;
  int l_finger_qposadr = -1, r_finger_qposadr = -1;
  // The last two joints named robot*: gripper_state and gripper_vel.
  std::array<int, 2> finger_qposadr{}, finger_dofadr{};
};
std::shared_ptr<const FetchSetup> fetch_setup(const FetchTask& task);

class FetchEnv final : public RobotEnv {
 public:
  static std::vector<ConfigField> config(const FetchTask& task);
  static Spaces spaces(const Config& c, const FetchTask& task);
  FetchEnv(const Config& c, int env_id, const FetchTask& task);

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs_leaves(void* const* dst) const override;
  void write_info(void* const* dst) const override;

 private:
  void sample_goal();
  void observe();

  FetchTask task_;
  std::shared_ptr<const FetchSetup> setup_;
  bool dense_ = false;
  std::array<double, 3> goal_{}, achieved_{};
  std::array<double, 25> obs_{};
  int obs_size_ = 0;
  float is_success_ = 0.0f;
};

}  // namespace envhive::robotics
