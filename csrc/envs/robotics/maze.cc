#include "maze.h"

#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "numerics.h"
#include "robot_env.h"

namespace envhive::robotics {

namespace {
std::mutex g_mu;
MazeSource g_source;
constexpr double kSuccessDistance = 0.45;

double distance2(const double* a, const Xy& b) {
  const double d[2] = {a[0] - b[0], a[1] - b[1]};
  return numerics::blas_norm(d, 2);  // np.linalg.norm(a - b): axis=None, a dot product
}
}  // namespace

MazeFiles maze_files(const FamilyData::Files& files) {
  MazeFiles maze;
  bool xml = false, rows = false;
  for (const auto& [name, contents] : files) {
    if (name == "maze.xml") {
      maze.xml = contents;
      xml = true;
    } else if (name == "maze.rows") {
      std::istringstream lines(contents);
      for (std::string row; std::getline(lines, row);)
        if (!row.empty()) maze.rows.push_back(row);
      rows = true;
    }
  }
  if (!xml || !rows || maze.rows.empty()) throw std::invalid_argument("a maze's files are maze.xml and maze.rows");
  return maze;
}

void set_maze_source(MazeSource source) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_source = std::move(source);
}

std::shared_ptr<const MazeModel> maze_model(const std::string& agent, const std::string& reference_id) {
  static std::map<std::string, std::weak_ptr<const MazeModel>> cache;
  std::lock_guard<std::mutex> lock(g_mu);
  const std::string key = agent + "|" + reference_id;
  if (auto cached = cache[key].lock()) return cached;
  if (!g_source) throw std::invalid_argument("the maze models are built by envhive.families.robotics (not set)");
  const MazeFiles files = g_source(agent, reference_id);
  auto maze = std::make_shared<MazeModel>();
  maze->model = mujoco::compile_model(files.xml, {}, reference_id + " (" + agent + ")");
  maze->rows = files.rows;
  maze->scaling = agent == "ant" ? 4.0 : 1.0;
  maze->height = agent == "ant" ? 0.5 : 0.4;
  // Maze.make_maze: cell centres row by row, then the fallbacks for maps without r / g / c cells.
  const double length = static_cast<double>(maze->rows.size());
  const double width = static_cast<double>(maze->rows.at(0).size());
  const double x_center = width / 2 * maze->scaling, y_center = length / 2 * maze->scaling;
  std::vector<Xy> goals, resets, combined, empty;
  for (size_t i = 0; i < maze->rows.size(); ++i)
    for (size_t j = 0; j < maze->rows[i].size(); ++j) {
      const Xy xy = {(static_cast<double>(j) + 0.5) * maze->scaling - x_center,
                     y_center - (static_cast<double>(i) + 0.5) * maze->scaling};
      switch (maze->rows[i][j]) {
        case 'r': resets.push_back(xy); break;
        case 'g': goals.push_back(xy); break;
        case 'c': combined.push_back(xy); break;
        case '0': empty.push_back(xy); break;
        case '1': break;
        default: throw std::invalid_argument("maze map cell '" + std::string(1, maze->rows[i][j]) + "' is unknown");
      }
    }
  if (goals.empty() && resets.empty() && combined.empty()) combined = empty;
  else if (resets.empty() && combined.empty()) resets = empty;
  else if (goals.empty() && combined.empty()) goals = empty;
  goals.insert(goals.end(), combined.begin(), combined.end());
  resets.insert(resets.end(), combined.begin(), combined.end());
  if (goals.empty() || resets.empty()) throw std::invalid_argument(reference_id + ": the maze has no free cell");
  maze->goals = std::move(goals);
  maze->resets = std::move(resets);
  std::shared_ptr<const MazeModel> out = maze;
  cache[key] = out;
  return out;
}

std::vector<ConfigField> maze_fields(bool dense_default) {
  return {{"reward_type", std::string(dense_default ? "dense" : "sparse"),
           "'sparse': 1 within 0.45 of the goal, else 0; 'dense': exp(-distance)."},
          {"continuing_task", true, "Keep going once the goal is reached (False: terminate there)."},
          {"reset_target", false, "With continuing_task, draw a new goal once the goal is reached."}};
}

MazeParams maze_params(const Config& c) {
  MazeParams p;
  p.dense = dense_reward(c);
  p.continuing_task = c.flag("continuing_task");
  p.reset_target = c.flag("reset_target");
  return p;
}

Xy MazeGoal::target_goal() {
  const auto& goals = maze_->goals;
  return goals[static_cast<size_t>(rng_.integers(0, static_cast<int64_t>(goals.size())))];
}

Xy MazeGoal::with_noise(Xy xy) {
  const double r = p_.position_noise_range;
  const double noise_x = rng_.uniform(-r, r) * maze_->scaling;
  const double noise_y = rng_.uniform(-r, r) * maze_->scaling;
  xy[0] += noise_x;
  xy[1] += noise_y;
  return xy;
}

Xy MazeGoal::reset() {
  goal_ = with_noise(target_goal());
  Xy start = goal_;
  const auto& resets = maze_->resets;
  while (distance2(start.data(), goal_) <= 0.5 * maze_->scaling)
    start = resets[static_cast<size_t>(rng_.integers(0, static_cast<int64_t>(resets.size())))];
  return with_noise(start);
}

double MazeGoal::reward(const double* achieved) const {
  const double d = goal_distance(achieved, goal_.data(), 2);
  if (p_.dense) return numerics::exp(-d);
  return d <= kSuccessDistance ? 1.0 : 0.0;
}

bool MazeGoal::terminated(const double* achieved) const {
  return !p_.continuing_task && distance2(achieved, goal_) <= kSuccessDistance;
}

bool MazeGoal::success(const double* achieved) const { return distance2(achieved, goal_) <= kSuccessDistance; }

void MazeGoal::update_goal(const double* achieved) {
  if (p_.continuing_task && p_.reset_target && distance2(achieved, goal_) <= kSuccessDistance &&
      maze_->goals.size() > 1)
    while (distance2(achieved, goal_) <= kSuccessDistance) goal_ = with_noise(target_goal());
}

}  // namespace envhive::robotics
