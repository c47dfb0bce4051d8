// dm_control's quadruped domain (suite/quadruped.py): walk and run (the Move task). The floor comes
// from the XML dm_control builds for each. escape (terrain from scipy.ndimage.zoom) and fetch are
// not implemented yet.
#pragma once

#include <vector>

#include "dmc_env.h"

namespace envhive::dmc {

class QuadrupedEnv final : public DmcEnv {
 public:
  static int64_t obs_size(const mjModel& m, const DmcTask&) {
    int64_t hinges = 0, imu = 0, force_torque = 0;
    for (int j = 0; j < m.njnt; ++j) hinges += m.jnt_type[j] == mjJNT_HINGE;
    for (int s = 0; s < m.nsensor; ++s) {
      if (m.sensor_type[s] == mjSENS_GYRO || m.sensor_type[s] == mjSENS_ACCELEROMETER) imu += m.sensor_dim[s];
      if (m.sensor_type[s] == mjSENS_FORCE || m.sensor_type[s] == mjSENS_TORQUE) force_torque += m.sensor_dim[s];
    }
    return 2 * hinges + m.na + 3 + 1 + imu + force_torque;
  }

  QuadrupedEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        desired_speed_(t.task == "run" ? 5 : 0.5),
        torso_(body("torso")),
        root_(joint_qpos("root")),
        velocimeter_(sensor_adr("velocimeter")) {
    for (int j = 0; j < m_->njnt; ++j)
      if (m_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    for (int s = 0; s < m_->nsensor; ++s) {  // in sensor order, as np.isin over sensor_type keeps it
      const int type = m_->sensor_type[s];
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) imu_.push_back(s);
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE) force_torque_.push_back(s);
    }
  }

 protected:
  void initialize_episode() override {
    double orientation[4];
    for (double& q : orientation) q = random().standard_normal();
    const double norm = linalg_norm(orientation, 4);
    for (double& q : orientation) q /= norm;
    // _find_non_contacting_height: raise the body from inside the floor until nothing touches.
    double z = 0.0;
    for (int attempts = 1;; ++attempts) {
      mj_resetData(m_, d_);  // a reset_context per attempt (its PhysicsErrors ignored)
      forward_without_actuation();
      d_->qpos[root_] = 0.0;
      d_->qpos[root_ + 1] = 0.0;
      d_->qpos[root_ + 2] = z;
      for (int k = 0; k < 4; ++k) d_->qpos[root_ + 3 + k] = orientation[k];
      forward_without_actuation();
      if (d_->ncon == 0) break;
      z += 0.01;
      if (attempts > 10000) throw std::runtime_error("Failed to find a non-contacting configuration.");
    }
  }

  void observe(ObsWriter& w) const override {
    for (const int j : hinges_) w.put(d_->qpos[m_->jnt_qposadr[j]]);  // egocentric_state
    for (const int j : hinges_) w.put(d_->qvel[m_->jnt_dofadr[j]]);
    w.put(d_->act, static_cast<size_t>(m_->na));
    w.put(d_->sensordata + velocimeter_, 3);  // torso_velocity
    w.put(xmat(torso_, 2, 2));                // torso_upright
    for (const int s : imu_) w.put(d_->sensordata + m_->sensor_adr[s], static_cast<size_t>(m_->sensor_dim[s]));
    for (const int s : force_torque_)  // np.arcsinh: numpy's SIMD kernel (see rewards.h)
      for (int k = 0; k < m_->sensor_dim[s]; ++k) w.put(std::asinh(d_->sensordata[m_->sensor_adr[s] + k]));
  }

  double reward() const override {
    // _upright_reward: deviation = cos(deg2rad(0)) = 1
    const double upright =
        tolerance(xmat(torso_, 2, 2), {.lower = 1.0, .upper = kInf, .margin = 2.0, .sigmoid = Sigmoid::kLinear, .value_at_margin = 0},
                  Arg::kArray);
    const double move = tolerance(d_->sensordata[velocimeter_], {.lower = desired_speed_,
                                                                 .upper = kInf,
                                                                 .margin = desired_speed_,
                                                                 .sigmoid = Sigmoid::kLinear,
                                                                 .value_at_margin = 0.5});
    return upright * move;
  }

 private:
  double desired_speed_;
  int torso_, root_, velocimeter_;
  std::vector<int> hinges_, imu_, force_torque_;
};

}  // namespace envhive::dmc
