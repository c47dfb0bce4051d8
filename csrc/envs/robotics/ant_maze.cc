#include "ant_maze.h"

#include <cstring>
#include <limits>

namespace envhive::robotics {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// AntEnv(xml_file=<maze>, exclude_current_positions_from_observation=False, reset_noise_scale=0.0),
// everything else at the version's defaults.
mujoco::AntEnv::Params ant_params(bool v5) {
  mujoco::AntEnv::Params p;
  p.v5 = v5;
  p.common.frame_skip = 5;
  p.exclude_current_positions = false;
  p.reset_noise_scale = 0.0;
  return p;
}

}  // namespace

Spaces AntMazeEnv::spaces(const Config& c, const MazeTask& t) {
  maze_params(c);
  const auto maze = maze_model("ant", t.reference_id);
  Spaces ant = mujoco::AntEnv::spaces(*maze->model, ant_params(t.v5));
  const int64_t n = ant.observation.shape.at(0) - 2;
  const auto box = [](int64_t k) { return SpaceSpec::box(DType::kFloat64, {k}, {-kInf}, {kInf}); };
  Spaces s;
  s.observation = SpaceSpec::dict({{"achieved_goal", box(2)}, {"desired_goal", box(2)}, {"observation", box(n)}});
  s.action = ant.action;
  s.infos = ant.infos;
  s.infos.push_back({"success", DType::kBool, {}});
  return s;
}

AntMazeEnv::AntMazeEnv(const Config& c, int /*env_id*/, const MazeTask& t)
    : maze_(maze_model("ant", t.reference_id)),
      ant_(std::make_unique<mujoco::AntEnv>(maze_->model, ant_params(t.v5))),
      goal_(maze_, maze_params(c)) {
  ant_infos_ = mujoco::AntEnv::spaces(*maze_->model, ant_params(t.v5)).infos.size();
  ant_obs_.resize(static_cast<size_t>(mujoco::AntEnv::obs_size(*maze_->model, ant_params(t.v5))));
}

void AntMazeEnv::reset() {
  const Xy start = goal_.reset();
  ant_->init_qpos()[0] = start[0];
  ant_->init_qpos()[1] = start[1];
  ant_->reset();
  observe();
  obs_goal_ = goal_.goal();
  success_ = goal_.success(ant_obs_.data());
}

StepResult AntMazeEnv::step(const void* action) {
  ant_->step(action);  // its reward and termination are the Ant's own; the maze's replace them
  observe();
  const double* achieved = ant_obs_.data();
  StepResult r;
  r.reward = goal_.reward(achieved);
  r.terminated = goal_.terminated(achieved);
  success_ = goal_.success(achieved);
  obs_goal_ = goal_.goal();
  goal_.update_goal(achieved);
  return r;
}

void AntMazeEnv::observe() { ant_->write_obs(ant_obs_.data()); }

void AntMazeEnv::write_obs_leaves(void* const* dst) const {
  std::memcpy(dst[0], ant_obs_.data(), 2 * sizeof(double));
  std::memcpy(dst[1], obs_goal_.data(), sizeof(obs_goal_));
  std::memcpy(dst[2], ant_obs_.data() + 2, (ant_obs_.size() - 2) * sizeof(double));
}

void AntMazeEnv::write_info(void* const* dst) const {
  ant_->write_info(dst);
  *static_cast<bool*>(dst[ant_infos_]) = success_;
}

}  // namespace envhive::robotics
