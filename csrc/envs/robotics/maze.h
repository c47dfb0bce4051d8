// Gymnasium-Robotics' mazes (maze/maze_v4.py: Maze and MazeEnv): the map's goal and reset cells, the
// goal drawn at each reset (a cell, then position noise), the agent's start away from it, the
// sparse / dense rewards, continuing_task and reset_target. The agents (point, ant) are in
// point_maze.h and ant_maze.h; the model XML (the agent's with the walls added) comes from Python.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../core/family_data.h"
#include "../../core/task.h"
#include "../mujoco/mujoco_env.h"

namespace envhive::robotics {

using Xy = std::array<double, 2>;

// A maze's model (compiled from the XML Python builds) and its map.
struct MazeModel {
  mujoco::ModelPtr model;
  std::vector<std::string> rows;  // a character per cell: '1' wall, '0' empty, 'r', 'g', 'c'
  double scaling = 1.0, height = 0.5;
  std::vector<Xy> goals, resets;  // Maze.unique_goal_locations / unique_reset_locations
};

// What Python hands over: the XML and the map rows (envhive.families.robotics.maze_model).
struct MazeFiles {
  std::string xml;
  std::vector<std::string> rows;
};
// The family resolver's files of a maze, maze.xml and maze.rows (one map row a line), as MazeFiles.
MazeFiles maze_files(const FamilyData::Files& files);
using MazeSource = std::function<MazeFiles(const std::string& agent, const std::string& reference_id)>;
void set_maze_source(MazeSource source);

// The model of `agent` ("point" or "ant") in the maze of `reference_id`, built once per process.
std::shared_ptr<const MazeModel> maze_model(const std::string& agent, const std::string& reference_id);

// The maze kwargs every maze task takes.
struct MazeParams {
  bool dense = false;
  bool continuing_task = true;
  bool reset_target = false;
  double position_noise_range = 0.25;
};
std::vector<ConfigField> maze_fields(bool dense_default);
MazeParams maze_params(const Config& c);

// MazeEnv's goal logic, on its own generator (the maze env's np_random; the agent env has its own).
class MazeGoal {
 public:
  MazeGoal(std::shared_ptr<const MazeModel> maze, MazeParams p) : maze_(std::move(maze)), p_(p) {}
  Pcg64& rng() { return rng_; }
  // MazeEnv.reset without options: the goal (with noise), then the agent's start (with noise).
  Xy reset();
  const Xy& goal() const { return goal_; }
  // compute_reward / compute_terminated / info["success"] of an achieved goal against the goal.
  double reward(const double* achieved) const;
  bool terminated(const double* achieved) const;
  bool success(const double* achieved) const;
  // MazeEnv.update_goal: a new goal once this one is reached (continuing_task and reset_target).
  void update_goal(const double* achieved);

 private:
  Xy target_goal();
  Xy with_noise(Xy xy);
  std::shared_ptr<const MazeModel> maze_;
  MazeParams p_;
  Pcg64 rng_;
  Xy goal_{};
};

}  // namespace envhive::robotics
