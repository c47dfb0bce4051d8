#include "robot_env.h"

#include <filesystem>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace envhive::robotics {

namespace {
std::mutex g_mu;
std::string g_assets_dir;
}  // namespace

void set_assets_dir(std::string dir) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_assets_dir = std::move(dir);
}

std::string asset_path(const std::string& relative) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_assets_dir.empty())
    throw std::invalid_argument("the Gymnasium-Robotics tasks need gymnasium-robotics (its models), which is not installed: "
                                "pip install \"envhive[robotics]\"");
  return (std::filesystem::path(g_assets_dir) / relative).string();
}

bool dense_reward(const Config& c) {
  const std::string& r = c.text("reward_type");
  if (r == "dense") return true;
  if (r == "sparse") return false;
  throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + r + "'");
}

int name_id(const mjModel* m, mjtObj type, const std::string& name) {
  const int id = mj_name2id(m, type, name.c_str());
  if (id < 0) throw std::invalid_argument("the robot model has no object named '" + name + "'");
  return id;
}

ModelPtr load_robot_model(const std::string& path) {
  const ModelPtr loaded = mujoco::load_model(path);
  mjModel* m = mj_copyModel(nullptr, loaded.get());
  if (!m) throw std::runtime_error("mj_copyModel failed");
  if (m->nmocap > 0) {
    static constexpr double kWeld[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0};
    for (int i = 0; i < m->neq; ++i)
      if (m->eq_type[i] == mjEQ_WELD) std::memcpy(m->eq_data + mjNEQDATA * i, kWeld, sizeof(kWeld));
  }
  return ModelPtr(m, [](const mjModel* p) { mj_deleteModel(const_cast<mjModel*>(p)); });
}

double goal_distance(const double* a, const double* b, int n) {
  const double s = npcompat::np_sum<double>(static_cast<size_t>(n), [a, b](size_t i) {
    const double d = a[i] - b[i];
    return d * d;
  });
  return std::sqrt(s);
}

int joint_qpos_size(const mjModel* m, int joint) {
  switch (m->jnt_type[joint]) {
    case mjJNT_FREE: return 7;
    case mjJNT_BALL: return 4;
    default: return 1;
  }
}

RobotEnv::RobotEnv(ModelPtr model, int n_substeps)
    : model_(std::move(model)), m_(model_.get()), n_substeps_(n_substeps) {
  d_ = mj_makeData(m_);
  if (!d_) throw std::runtime_error("mj_makeData failed");
  dt_ = static_cast<double>(n_substeps_) * m_->opt.timestep;
  jacp_.resize(3 * static_cast<size_t>(m_->nv));
  jacr_.resize(3 * static_cast<size_t>(m_->nv));
}

RobotEnv::~RobotEnv() {
  if (d_) mj_deleteData(d_);
}

void RobotEnv::restore(const InitialState& s) {
  mj_resetData(m_, d_);
  d_->time = s.time;
  std::memcpy(d_->qpos, s.qpos.data(), sizeof(double) * static_cast<size_t>(m_->nq));
  std::memcpy(d_->qvel, s.qvel.data(), sizeof(double) * static_cast<size_t>(m_->nv));
  for (int i = 0; i < m_->na; ++i) d_->act[i] = std::numeric_limits<double>::quiet_NaN();
}

void RobotEnv::ctrl_set_action(const double* a, int n) {
  if (m_->nu == 0) return;
  for (int i = 0; i < n; ++i) {
    if (m_->actuator_biastype[i] == 0) {
      d_->ctrl[i] = a[i];
    } else {
      const int idx = m_->jnt_qposadr[m_->actuator_trnid[2 * i]];
      d_->ctrl[i] = d_->qpos[idx] + a[i];
    }
  }
}

void RobotEnv::reset_mocap2body_xpos() {
  for (int i = 0; i < m_->neq; ++i) {
    if (m_->eq_type[i] != mjEQ_WELD) continue;
    const int obj1 = m_->eq_obj1id[i], obj2 = m_->eq_obj2id[i];
    int mocap = m_->body_mocapid[obj1], body = obj2;
    if (mocap == -1) {
      mocap = m_->body_mocapid[obj2];
      body = obj1;
    }
    if (mocap == -1) throw std::runtime_error("a weld equality joins no mocap body");
    std::memcpy(d_->mocap_pos + 3 * mocap, d_->xpos + 3 * body, 3 * sizeof(double));
    std::memcpy(d_->mocap_quat + 4 * mocap, d_->xquat + 4 * body, 4 * sizeof(double));
  }
}

void RobotEnv::mocap_set_action(const double* a) {
  if (m_->nmocap == 0) return;
  reset_mocap2body_xpos();
  for (int k = 0; k < m_->nmocap; ++k) {
    for (int j = 0; j < 3; ++j) d_->mocap_pos[3 * k + j] = d_->mocap_pos[3 * k + j] + a[7 * k + j];
    for (int j = 0; j < 4; ++j) d_->mocap_quat[4 * k + j] = d_->mocap_quat[4 * k + j] + a[7 * k + 3 + j];
  }
}

void RobotEnv::site_velocity(int site, double linear[3], double angular[3]) {
  mj_jacSite(m_, d_, jacp_.data(), jacr_.data(), site);
  numerics::matvec3(jacp_.data(), d_->qvel, m_->nv, linear);
  numerics::matvec3(jacr_.data(), d_->qvel, m_->nv, angular);
}

void RobotEnv::site_linear_velocity(int site, double linear[3]) {
  mj_jacSite(m_, d_, jacp_.data(), nullptr, site);
  numerics::matvec3(jacp_.data(), d_->qvel, m_->nv, linear);
}

}  // namespace envhive::robotics
