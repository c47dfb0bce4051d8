#include "point_maze.h"

#include <cstring>
#include <limits>

namespace envhive::robotics {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

Spaces PointMazeEnv::spaces(const Config& c, const MazeTask& t) {
  maze_params(c);
  const auto maze = maze_model("point", t.reference_id);
  const auto box = [](int64_t n) { return SpaceSpec::box(DType::kFloat64, {n}, {-kInf}, {kInf}); };
  Spaces s;
  s.observation = SpaceSpec::dict({{"achieved_goal", box(2)}, {"desired_goal", box(2)}, {"observation", box(4)}});
  s.action = mujoco::mujoco_spaces(*maze->model, 4).action;
  s.infos = {{"success", DType::kBool, {}}};
  return s;
}

PointMazeEnv::PointMazeEnv(const Config& c, int /*env_id*/, const MazeTask& t)
    : MujocoEnv(maze_model("point", t.reference_id)->model, 1),
      maze_(maze_model("point", t.reference_id)),
      goal_(maze_, maze_params(c)) {}

void PointMazeEnv::reset_model() {
  const Xy start = goal_.reset();
  init_qpos_[0] = start[0];
  init_qpos_[1] = start[1];
  set_state(init_qpos_.data(), init_qvel_.data());  // PointEnv.reset_model
  obs_goal_ = goal_.goal();
  success_ = goal_.success(d_->qpos);
}

StepResult PointMazeEnv::step(const void* action) {
  const float* a = static_cast<const float*>(action);
  float clipped[2];
  for (int k = 0; k < 2; ++k) clipped[k] = a[k] < -1.0f ? -1.0f : (a[k] > 1.0f ? 1.0f : a[k]);
  // PointEnv._clip_velocity: qvel clipped to [-5, 5], set_state (its mj_forward included).
  for (int k = 0; k < m_->nv; ++k) qvel_buf_[k] = mujoco::np_clip(d_->qvel[k], -5.0, 5.0);
  std::memcpy(qpos_buf_.data(), d_->qpos, sizeof(double) * static_cast<size_t>(m_->nq));
  set_state(qpos_buf_.data(), qvel_buf_.data());
  do_simulation(clipped);
  const double* achieved = d_->qpos;
  StepResult r;
  r.reward = goal_.reward(achieved);
  r.terminated = goal_.terminated(achieved);
  success_ = goal_.success(achieved);
  obs_goal_ = goal_.goal();
  goal_.update_goal(achieved);
  return r;
}

void PointMazeEnv::write_obs_leaves(void* const* dst) const {
  std::memcpy(dst[0], d_->qpos, 2 * sizeof(double));
  std::memcpy(dst[1], obs_goal_.data(), sizeof(obs_goal_));
  double* o = static_cast<double*>(dst[2]);
  std::memcpy(o, d_->qpos, 2 * sizeof(double));
  std::memcpy(o + 2, d_->qvel, 2 * sizeof(double));
}

void PointMazeEnv::write_info(void* const* dst) const { *static_cast<bool*>(dst[0]) = success_; }

}  // namespace envhive::robotics
