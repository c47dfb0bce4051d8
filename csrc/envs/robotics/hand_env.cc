#include "hand_env.h"

#include <cstring>
#include <limits>

namespace envhive::robotics {

Spaces HandEnv::hand_spaces(int64_t goal_size, int64_t obs_size) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto box = [inf](int64_t n) { return SpaceSpec::box(DType::kFloat64, {n}, {-inf}, {inf}); };
  Spaces s;
  s.observation =
      SpaceSpec::dict({{"achieved_goal", box(goal_size)}, {"desired_goal", box(goal_size)}, {"observation", box(obs_size)}});
  s.action = SpaceSpec::box(DType::kFloat32, {20}, {-1.0}, {1.0});
  s.infos = {{"is_success", DType::kFloat32, {}}};
  return s;
}

HandEnv::HandEnv(ModelPtr model) : RobotEnv(std::move(model), 20) {
  if (m_->nu != 20) throw std::invalid_argument("the hand model must have 20 actuators");
  for (int j = 0; j < m_->njnt; ++j) {
    const char* name = mj_id2name(m_, mjOBJ_JOINT, j);
    if (name && std::strncmp(name, "robot", 5) == 0) {
      robot_qpos_.push_back(m_->jnt_qposadr[j]);
      robot_dof_.push_back(m_->jnt_dofadr[j]);
    }
  }
  for (int i = 0; i < 20; ++i) {
    const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
    center_.push_back((hi + lo) / 2.0);
    half_range_.push_back((hi - lo) / 2.0);
  }
}

void HandEnv::set_action(const double* a) {
  for (int i = 0; i < 20; ++i) {
    const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
    d_->ctrl[i] = mujoco::np_clip(center_[i] + a[i] * half_range_[i], lo, hi);
  }
}

void HandEnv::act(const void* action) {
  const float* a = static_cast<const float*>(action);
  double clipped[20];
  for (int i = 0; i < 20; ++i) clipped[i] = static_cast<double>(a[i] < -1.0f ? -1.0f : (a[i] > 1.0f ? 1.0f : a[i]));
  set_action(clipped);
  simulate();
}

double* HandEnv::put_robot_state(double* out) const {
  for (const int a : robot_qpos_) *out++ = d_->qpos[a];
  for (const int a : robot_dof_) *out++ = d_->qvel[a];
  return out;
}

}  // namespace envhive::robotics
