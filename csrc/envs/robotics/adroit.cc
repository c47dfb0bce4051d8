#include "adroit.h"

#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

namespace envhive::robotics {

namespace {

const char* xml_of(AdroitTask task) {
  switch (task) {
    case AdroitTask::kDoor: return "adroit_hand/adroit_door.xml";
    case AdroitTask::kHammer: return "adroit_hand/adroit_hammer.xml";
    case AdroitTask::kPen: return "adroit_hand/adroit_pen.xml";
    default: return "adroit_hand/adroit_relocate.xml";
  }
}

// The observation sizes the reference declares.
int64_t obs_size(AdroitTask task) {
  switch (task) {
    case AdroitTask::kDoor: return 39;
    case AdroitTask::kHammer: return 46;
    case AdroitTask::kPen: return 45;
    default: return 39;
  }
}

// The task's model with the reference's constructor changes: gains (10, 0, 0) and biases (0, -10, 0)
// of the wrist actuators A_WRJ1..A_WRJ0, (1, 0, 0) and (0, -1, 0) of the finger ones A_FFJ3..A_THJ0.
std::shared_ptr<const mjModel> template_model(AdroitTask task) {
  static std::mutex mu;
  static std::map<AdroitTask, std::weak_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto cached = cache[task].lock()) return cached;
  const ModelPtr loaded = mujoco::load_model(asset_path(xml_of(task)));
  mjModel* m = mj_copyModel(nullptr, loaded.get());
  if (!m) throw std::runtime_error("mj_copyModel failed");
  std::shared_ptr<const mjModel> out(m, [](const mjModel* p) { mj_deleteModel(const_cast<mjModel*>(p)); });
  const auto set = [m](const char* first, const char* last, double gain, double bias) {
    const int a = name_id(m, mjOBJ_ACTUATOR, first), b = name_id(m, mjOBJ_ACTUATOR, last);
    for (int i = a; i <= b; ++i) {
      double* g = m->actuator_gainprm + mjNGAIN * i;
      double* p = m->actuator_biasprm + mjNBIAS * i;
      g[0] = gain, g[1] = 0.0, g[2] = 0.0;
      p[0] = 0.0, p[1] = bias, p[2] = 0.0;
    }
  };
  set("A_WRJ1", "A_WRJ0", 10.0, -10.0);
  set("A_FFJ3", "A_THJ0", 1.0, -1.0);
  cache[task] = out;
  return out;
}

}  // namespace

AdroitModel adroit_model(AdroitTask task) {
  const auto base = template_model(task);
  mjModel* m = mj_copyModel(nullptr, base.get());
  if (!m) throw std::runtime_error("mj_copyModel failed");
  return {ModelPtr(m, [](const mjModel* p) { mj_deleteModel(const_cast<mjModel*>(p)); }), m};
}

std::vector<ConfigField> AdroitEnv::config(AdroitTask /*task*/, bool dense) {
  return {{"reward_type", std::string(dense ? "dense" : "sparse"),
           "'dense': the task's shaped reward; 'sparse': 10 on success, else -0.1."}};
}

Spaces AdroitEnv::spaces(const Config& c, AdroitTask task, bool /*dense*/) {
  dense_reward(c);
  const auto m = template_model(task);
  const double inf = std::numeric_limits<double>::infinity();
  Spaces s;
  s.observation = SpaceSpec::box(DType::kFloat64, {obs_size(task)}, {-inf}, {inf});
  s.action = SpaceSpec::box(DType::kFloat32, {m->nu}, {-1.0}, {1.0});
  s.infos = {{"success", DType::kBool, {}}};
  return s;
}

AdroitEnv::AdroitEnv(const Config& c, AdroitModel model)
    : RobotEnv(model.model, 5), mut_(model.mut), dense_(dense_reward(c)) {
  const size_t nu = static_cast<size_t>(m_->nu);
  act_mean_.resize(nu), act_rng_.resize(nu), ctrl_.resize(nu);
  for (size_t i = 0; i < nu; ++i) {
    const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
    act_mean_[i] = (lo + hi) / 2.0;  // np.mean(ctrlrange, axis=1)
    act_rng_[i] = 0.5 * (hi - lo);
  }
}

void AdroitEnv::set_initial_state() {
  std::memcpy(d_->qpos, m_->qpos0, sizeof(double) * static_cast<size_t>(m_->nq));
  std::memset(d_->qvel, 0, sizeof(double) * static_cast<size_t>(m_->nv));
  mj_forward(m_, d_);
}

void AdroitEnv::reset() {
  mj_resetData(m_, d_);
  reset_model();
  success_ = false;
}

StepResult AdroitEnv::step(const void* action) {
  const float* a = static_cast<const float*>(action);
  for (size_t i = 0; i < ctrl_.size(); ++i) {
    const float clipped = a[i] < -1.0f ? -1.0f : (a[i] > 1.0f ? 1.0f : a[i]);
    ctrl_[i] = act_mean_[i] + static_cast<double>(clipped) * act_rng_[i];
  }
  std::memcpy(d_->ctrl, ctrl_.data(), sizeof(double) * ctrl_.size());
  simulate();
  mj_rnePostConstraint(m_, d_);
  StepResult r;
  r.reward = evaluate();
  return r;
}

std::unique_ptr<Env> make_adroit(const Config& c, AdroitTask task) {
  switch (task) {
    case AdroitTask::kDoor: return make_adroit_door(c);
    case AdroitTask::kHammer: return make_adroit_hammer(c);
    case AdroitTask::kPen: return make_adroit_pen(c);
    default: return make_adroit_relocate(c);
  }
}

}  // namespace envhive::robotics
