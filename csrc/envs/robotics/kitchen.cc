#include "kitchen.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "robot_env.h"

namespace envhive::robotics {

namespace {

// kitchen_env.py's OBS_ELEMENT_INDICES and OBS_ELEMENT_GOALS, in its order; the observation's goal
// Dicts list the selected ones sorted by name (Gymnasium's Dict), the infos' masks in this order.
struct KitchenObject {
  const char* name;
  std::vector<int> qpos;
  std::vector<double> goal;
};
const std::vector<KitchenObject>& objects() {
  static const std::vector<KitchenObject> all = {
      {"bottom burner", {11, 12}, {-0.88, -0.01}},
      {"top burner", {15, 16}, {-0.92, -0.01}},
      {"light switch", {17, 18}, {-0.69, -0.05}},
      {"slide cabinet", {19}, {0.37}},
      {"hinge cabinet", {20, 21}, {0.0, 1.45}},
      {"microwave", {22}, {-0.75}},
      {"kettle", {23, 24, 25, 26, 27, 28, 29}, {-0.23, 0.75, 1.62, 0.99, 0.0, 0.0, -0.06}},
  };
  return all;
}
constexpr double kBonusThreshold = 0.3;

// KitchenEnv's robot_env.init_qpos.
constexpr double kInitQpos[30] = {
    1.48388023e-01,  -1.76848573e00,  1.84390296e00,  -2.47685760e00, 2.60252026e-01,  7.12533105e-01,
    1.59515394e00,   4.79267505e-02,  3.71350919e-02, -2.66279850e-04, -5.18043486e-05, 3.12877220e-05,
    -4.51199853e-05, -3.90842156e-06, -4.22629655e-05, 6.28065475e-05, 4.04984708e-05,  4.62730939e-04,
    -2.26906415e-04, -4.65501369e-04, -6.44129196e-03, -1.77048263e-03, 1.08009684e-03, -2.69397440e-01,
    3.50383255e-01,  1.61944683e00,   1.00618764e00,  4.06395120e-03, -6.62095997e-03, -2.68278933e-04,
};

// The model and franka_config.xml's bounds and noise amplitudes (one per dof).
struct KitchenModel {
  ModelPtr model;
  std::vector<std::array<double, 2>> pos_bound, vel_bound;
  std::vector<double> pos_noise, vel_noise;
  std::vector<int> robot_qpos, robot_dof;  // joints named robot*
};

std::shared_ptr<const KitchenModel> kitchen_model() {
  static std::mutex mu;
  static std::weak_ptr<const KitchenModel> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto cached = cache.lock()) return cached;
  auto k = std::make_shared<KitchenModel>();
  k->model = mujoco::load_model(asset_path("kitchen_franka/kitchen_assets/kitchen_env_model.xml"));
  const mjModel* m = k->model.get();
  std::ifstream file(asset_path("kitchen_franka/franka_assets/franka_config.xml"));
  std::stringstream text;
  text << file.rdbuf();
  const std::string config = text.str();
  const auto numbers = [&config](int i, const std::string& attr) {
    const std::regex re("<qpos" + std::to_string(i) + "\\b[^>]*\\b" + attr + "='([^']*)'");
    std::smatch match;
    if (!std::regex_search(config, match, re))
      throw std::invalid_argument("franka_config.xml: no " + attr + " for qpos" + std::to_string(i));
    std::istringstream values(match[1].str());
    std::vector<double> out;
    for (std::string v; values >> v;) out.push_back(std::stod(v));
    return out;
  };
  for (int i = 0; i < m->nv; ++i) {
    const auto pos = numbers(i, "pos_bound"), vel = numbers(i, "vel_bound");
    k->pos_bound.push_back({pos.at(0), pos.at(1)});
    k->vel_bound.push_back({vel.at(0), vel.at(1)});
    k->pos_noise.push_back(numbers(i, "pos_noise_amp").at(0));
    k->vel_noise.push_back(numbers(i, "vel_noise_amp").at(0));
  }
  for (int j = 0; j < m->njnt; ++j) {
    const char* name = mj_id2name(m, mjOBJ_JOINT, j);
    if (name && std::strncmp(name, "robot", 5) == 0) {
      k->robot_qpos.push_back(m->jnt_qposadr[j]);
      k->robot_dof.push_back(m->jnt_dofadr[j]);
    }
  }
  if (k->robot_qpos.size() != 9 || m->nq != 30 || m->nu != 9)
    throw std::invalid_argument("the kitchen model is not the one FrankaKitchen-v1 expects");
  cache = k;
  return k;
}

// The selected tasks (indices into objects()), from the comma-separated tasks_to_complete kwarg.
std::vector<int> selected_tasks(const Config& c) {
  const std::string& text = c.text("tasks_to_complete");
  std::vector<int> out;
  if (text.empty()) {
    for (int i = 0; i < 7; ++i) out.push_back(i);
    return out;
  }
  std::stringstream parts(text);
  for (std::string name; std::getline(parts, name, ',');) {
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    int found = -1;
    for (int i = 0; i < 7; ++i)
      if (name == objects()[static_cast<size_t>(i)].name) found = i;
    if (found < 0)
      throw std::invalid_argument("tasks_to_complete: unknown task '" + name +
                                  "' (bottom burner, top burner, light switch, slide cabinet, hinge cabinet, "
                                  "microwave, kettle)");
    bool seen = false;
    for (const int t : out) seen = seen || t == found;
    if (!seen) out.push_back(found);
  }
  return out;
}

// The selected tasks sorted by name: the order of the goal Dicts' leaves.
std::vector<int> sorted_tasks(std::vector<int> tasks) {
  std::sort(tasks.begin(), tasks.end(),
            [](int a, int b) { return std::string(objects()[a].name) < std::string(objects()[b].name); });
  return tasks;
}

class KitchenEnv final : public RobotEnv {
 public:
  KitchenEnv(const Config& c, std::shared_ptr<const KitchenModel> k)
      : RobotEnv(k->model, 40), k_(std::move(k)), tasks_(selected_tasks(c)), leaves_(sorted_tasks(tasks_)) {
    terminate_ = c.flag("terminate_on_tasks_completed");
    remove_ = c.flag("remove_task_when_completed");
    object_noise_ = c.real("object_noise_ratio");
    robot_noise_ = c.real("robot_noise_ratio");
    if (!std::isfinite(object_noise_) || !std::isfinite(robot_noise_))
      throw std::invalid_argument("object_noise_ratio and robot_noise_ratio must be finite");
  }

  void reset() override {
    episode_.fill(false);
    step_done_.fill(false);
    mj_resetData(m_, d_);
    std::memcpy(d_->qpos, kInitQpos, sizeof(kInitQpos));
    std::memset(d_->qvel, 0, sizeof(double) * static_cast<size_t>(m_->nv));
    mj_forward(m_, d_);
    observe();
    remaining_.fill(false);
    for (const int t : tasks_) remaining_[t] = true;
  }

  StepResult step(const void* action) override {
    const double* a = static_cast<const double*>(action);
    const double dt = m_->opt.timestep * 40;
    for (int i = 0; i < 9; ++i) {
      const double act = 0.0 + mujoco::np_clip(a[i], -1.0, 1.0) * 2.0;  // act_mid + action * act_rng
      const double vel = mujoco::np_clip(act, k_->vel_bound[i][0], k_->vel_bound[i][1]);
      d_->ctrl[i] = mujoco::np_clip(last_robot_qpos_[i] + vel * dt, k_->pos_bound[i][0], k_->pos_bound[i][1]);
    }
    simulate();
    mj_rnePostConstraint(m_, d_);
    observe();
    // compute_reward: each remaining task whose objects are within 0.3 of their goal.
    step_done_.fill(false);
    int completed = 0;
    for (const int t : tasks_) {
      if (!remaining_[t]) continue;
      const KitchenObject& o = objects()[static_cast<size_t>(t)];
      double diff[7];
      for (size_t k = 0; k < o.qpos.size(); ++k) diff[k] = d_->qpos[o.qpos[k]] - o.goal[k];
      if (numerics::blas_norm(diff, static_cast<int>(o.qpos.size())) < kBonusThreshold) {
        step_done_[t] = true;
        ++completed;
      }
    }
    for (int t = 0; t < 7; ++t)
      if (step_done_[t]) {
        if (remove_) remaining_[t] = false;
        episode_[t] = true;
      }
    StepResult r;
    r.reward = static_cast<double>(completed);
    if (terminate_) {
      size_t done = 0;
      for (const int t : tasks_) done += episode_[t];
      r.terminated = done == tasks_.size();
    }
    return r;
  }

  void write_obs_leaves(void* const* dst) const override {
    const size_t n = leaves_.size();
    for (size_t i = 0; i < n; ++i) {
      const KitchenObject& o = objects()[static_cast<size_t>(leaves_[i])];
      double* achieved = static_cast<double*>(dst[i]);
      for (size_t k = 0; k < o.qpos.size(); ++k) achieved[k] = d_->qpos[o.qpos[k]];
      std::memcpy(dst[n + i], o.goal.data(), sizeof(double) * o.goal.size());
    }
    std::memcpy(dst[2 * n], obs_.data(), sizeof(obs_));
  }

  void write_info(void* const* dst) const override {
    for (int t = 0; t < 7; ++t) {
      static_cast<bool*>(dst[0])[t] = remaining_[t];
      static_cast<bool*>(dst[1])[t] = step_done_[t];
      static_cast<bool*>(dst[2])[t] = episode_[t];
    }
  }

 private:
  // FrankaRobot._get_obs then KitchenEnv._get_obs: positions and velocities with uniform noise, the
  // robot's drawn first (the robot env's generator, this env's).
  void observe() {
    double* o = obs_.data();
    for (size_t i = 0; i < 9; ++i) o[i] = d_->qpos[k_->robot_qpos[i]];
    for (size_t i = 0; i < 9; ++i) o[9 + i] = d_->qvel[k_->robot_dof[i]];
    for (size_t i = 0; i < 9; ++i) o[i] += robot_noise_ * k_->pos_noise[i] * rng().uniform(-1.0, 1.0);
    for (size_t i = 0; i < 9; ++i) o[9 + i] += robot_noise_ * k_->vel_noise[i] * rng().uniform(-1.0, 1.0);
    std::memcpy(last_robot_qpos_.data(), o, sizeof(last_robot_qpos_));
    for (size_t i = 0; i < 21; ++i)
      o[18 + i] = d_->qpos[9 + i] + object_noise_ * k_->pos_noise[8 + i] * rng().uniform(-1.0, 1.0);
    for (size_t i = 0; i < 20; ++i)
      o[39 + i] = d_->qvel[9 + i] + object_noise_ * k_->vel_noise[9 + i] * rng().uniform(-1.0, 1.0);
  }

  std::shared_ptr<const KitchenModel> k_;
  std::vector<int> tasks_, leaves_;
  bool terminate_ = true, remove_ = true;
  double object_noise_ = 0.0005, robot_noise_ = 0.01;
  std::array<double, 59> obs_{};
  std::array<double, 9> last_robot_qpos_{};
  std::array<bool, 7> remaining_{}, step_done_{}, episode_{};
};

}  // namespace

std::vector<ConfigField> KitchenDecl::config(const KitchenTask&) {
  return {{"tasks_to_complete", std::string(),
           "The tasks of the episode, comma-separated (bottom burner, top burner, light switch, slide cabinet, "
           "hinge cabinet, microwave, kettle); '': all seven."},
          {"terminate_on_tasks_completed", true, "End the episode once every task is completed."},
          {"remove_task_when_completed", true, "A completed task rewards only at its first completion."},
          {"object_noise_ratio", 0.0005, "Uniform noise on the objects' observed positions and velocities."},
          {"robot_noise_ratio", 0.01, "Uniform noise on the robot's observed joints."}};
}

Spaces kitchen_spaces(const Config& c) {
  const auto tasks = sorted_tasks(selected_tasks(c));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<std::string, SpaceSpec>> goals;
  for (const int t : tasks) {
    const auto& o = objects()[static_cast<size_t>(t)];
    goals.push_back({o.name, SpaceSpec::box(DType::kFloat64, {static_cast<int64_t>(o.goal.size())}, {-inf}, {inf})});
  }
  Spaces s;
  s.observation = SpaceSpec::dict({{"achieved_goal", SpaceSpec::dict(goals)},
                                   {"desired_goal", SpaceSpec::dict(goals)},
                                   {"observation", SpaceSpec::box(DType::kFloat64, {59}, {-inf}, {inf})}});
  s.action = SpaceSpec::box(DType::kFloat64, {9}, {-1.0}, {1.0});
  s.infos = {{"tasks_to_complete", DType::kBool, {7}},
             {"step_task_completions", DType::kBool, {7}},
             {"episode_task_completions", DType::kBool, {7}}};
  return s;
}

std::unique_ptr<Env> make_kitchen(const Config& c) { return std::make_unique<KitchenEnv>(c, kitchen_model()); }

}  // namespace envhive::robotics
