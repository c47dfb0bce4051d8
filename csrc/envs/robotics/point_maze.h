// Gymnasium-Robotics' PointMaze (maze/point_maze.py and maze/point.py, v3): a force-actuated ball in
// a maze, its goal drawn over the map's goal cells. Observation {achieved_goal: the ball's x, y;
// desired_goal; observation: qpos, qvel}; info "success".
#pragma once

#include <memory>
#include <string>

#include "maze.h"

namespace envhive::robotics {

struct MazeTask {
  std::string reference_id;  // the gymnasium-robotics id whose map the task uses
  bool dense = false;
  bool v5 = false;  // AntMaze: the Ant version (v4: Ant-v4, v5: Ant-v5)
};

class PointMazeEnv final : public mujoco::MujocoEnv {
 public:
  static std::vector<ConfigField> config(const MazeTask& t) { return maze_fields(t.dense); }
  static Spaces spaces(const Config& c, const MazeTask& t);
  PointMazeEnv(const Config& c, int env_id, const MazeTask& t);

  // The maze's generator and the point env's are seeded alike (the reference seeds both with the
  // reset's seed); the point env draws nothing.
  void seed(uint64_t s) override {
    Env::seed(s);
    goal_.rng().seed(s);
  }
  void seed_from_os() override {
    Env::seed_from_os();
    goal_.rng().seed_from_os();
  }
  StepResult step(const void* action) override;
  void write_obs_leaves(void* const* dst) const override;
  void write_info(void* const* dst) const override;

 protected:
  void reset_model() override;

 private:
  std::shared_ptr<const MazeModel> maze_;
  MazeGoal goal_;
  Xy obs_goal_{};  // the desired goal of the last observation (before update_goal)
  bool success_ = false;
};

}  // namespace envhive::robotics

namespace envhive {

// PointMazeEnv derives from the MuJoCo base for its physics only: it is declared like any task (not
// through the MuJoCo family's TaskTraits, which read Gymnasium's MuJoCo kwargs).
template <>
struct TaskTraits<robotics::PointMazeEnv> {
  static std::vector<ConfigField> config(const robotics::MazeTask& t) { return robotics::PointMazeEnv::config(t); }
  static Spaces spaces(const Config& c, const robotics::MazeTask& t) { return robotics::PointMazeEnv::spaces(c, t); }
  static std::unique_ptr<Env> make(const Config& c, int env_id, const robotics::MazeTask& t) {
    return std::make_unique<robotics::PointMazeEnv>(c, env_id, t);
  }
};

}  // namespace envhive
