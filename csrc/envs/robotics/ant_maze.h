// Gymnasium-Robotics' AntMaze v4 and v5 (maze/ant_maze_v4.py, ant_maze_v5.py): Gymnasium's Ant (v4 or
// v5, with its x, y in the observation and no reset noise) in a maze scaled by 4. The ant is
// envhive's own Gymnasium Ant (csrc/envs/mujoco/ant.h) on the maze model; its infos come along, as
// the reference passes the Ant's step infos on, with "success" after them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../mujoco/ant.h"
#include "point_maze.h"

namespace envhive::robotics {

class AntMazeEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const MazeTask& t) { return maze_fields(t.dense); }
  static Spaces spaces(const Config& c, const MazeTask& t);
  AntMazeEnv(const Config& c, int env_id, const MazeTask& t);

  // The maze's generator and the Ant's are seeded alike (the reference seeds both with the reset's
  // seed); the Ant draws its (zero) reset noise from its own.
  void seed(uint64_t s) override {
    ant_->seed(s);
    goal_.rng().seed(s);
  }
  void seed_from_os() override {
    ant_->seed_from_os();
    goal_.rng().seed_from_os();
  }
  void reset() override;
  StepResult step(const void* action) override;
  void write_obs_leaves(void* const* dst) const override;
  void write_info(void* const* dst) const override;

 private:
  void observe();
  std::shared_ptr<const MazeModel> maze_;
  std::unique_ptr<mujoco::AntEnv> ant_;
  MazeGoal goal_;
  std::vector<double> ant_obs_;
  Xy obs_goal_{};
  bool success_ = false;
  size_t ant_infos_ = 0;
};

}  // namespace envhive::robotics
