// What dm_control's quadruped tasks share (suite/quadruped.py): the body's observations
// (_common_observations), the upright reward, and _find_non_contacting_height. The tasks are
// quadruped.h (walk, run), quadruped_escape.h and quadruped_fetch.h; each floor (its size, the
// escape terrain's heightfield, fetch's walls and ball) comes from the XML dm_control builds.
#pragma once

#include <cmath>
#include <vector>

#include "dmc_env.h"

namespace envhive::dmc {

class QuadrupedBody : public DmcEnv {
 public:
  // _common_observations: egocentric_state, torso_velocity, torso_upright, imu, force_torque.
  static ObsLeaves common_observation(const mjModel& m) {
    int64_t hinges = 0, imu = 0, force_torque = 0;
    for (int j = 0; j < m.njnt; ++j) hinges += m.jnt_type[j] == mjJNT_HINGE;
    for (int s = 0; s < m.nsensor; ++s) {
      if (m.sensor_type[s] == mjSENS_GYRO || m.sensor_type[s] == mjSENS_ACCELEROMETER) imu += m.sensor_dim[s];
      if (m.sensor_type[s] == mjSENS_FORCE || m.sensor_type[s] == mjSENS_TORQUE) force_torque += m.sensor_dim[s];
    }
    return {{"egocentric_state", {2 * hinges + m.na}},
            {"torso_velocity", {3}},
            {"torso_upright", {}},
            {"imu", {imu}},
            {"force_torque", {force_torque}}};
  }

 protected:
  QuadrupedBody(const Params& p, int env_id)
      : DmcEnv(p, env_id), torso_(body("torso")), root_(joint_qpos("root")), velocimeter_(sensor_adr("velocimeter")) {
    for (int j = 0; j < m_->njnt; ++j)
      if (m_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    for (int s = 0; s < m_->nsensor; ++s) {  // in sensor order, as np.isin over sensor_type keeps it
      const int type = m_->sensor_type[s];
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) imu_.push_back(s);
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE) force_torque_.push_back(s);
    }
  }

  // orientation / np.linalg.norm(orientation) of four randn draws.
  void random_orientation(double* quat) {
    for (int k = 0; k < 4; ++k) quat[k] = random().standard_normal();
    const double norm = npk::norm(quat, 4);
    for (int k = 0; k < 4; ++k) quat[k] /= norm;
  }

  // _find_non_contacting_height: from inside the floor, 1 cm up per attempt until nothing touches
  // (each attempt a reset_context, its PhysicsErrors ignored).
  void find_non_contacting_height(const double* orientation, double x = 0.0, double y = 0.0) {
    double z = 0.0;
    for (int attempts = 1;; ++attempts) {
      mj_resetData(m_, d_);
      forward_without_actuation();
      d_->qpos[root_] = x;
      d_->qpos[root_ + 1] = y;
      d_->qpos[root_ + 2] = z;
      for (int k = 0; k < 4; ++k) d_->qpos[root_ + 3 + k] = orientation[k];
      forward_without_actuation();
      if (d_->ncon == 0) break;
      z += 0.01;
      if (attempts > 10000) throw std::runtime_error("Failed to find a non-contacting configuration.");
    }
  }

  void put_common(ObsWriter& w) const {
    for (const int j : hinges_) w.put(d_->qpos[m_->jnt_qposadr[j]]);  // egocentric_state
    for (const int j : hinges_) w.put(d_->qvel[m_->jnt_dofadr[j]]);
    w.put(d_->act, static_cast<size_t>(m_->na));
    w.put(d_->sensordata + velocimeter_, 3);  // torso_velocity
    w.put(torso_upright());
    for (const int s : imu_) w.put(d_->sensordata + m_->sensor_adr[s], static_cast<size_t>(m_->sensor_dim[s]));
    size_t force_torque_size = 0;  // np.arcsinh of the sensors' concatenated readings
    for (const int s : force_torque_) force_torque_size += static_cast<size_t>(m_->sensor_dim[s]);
    for (const int s : force_torque_)
      for (int k = 0; k < m_->sensor_dim[s]; ++k)
        w.put(npk::element(npk::Ufunc::kArcsinh, d_->sensordata[m_->sensor_adr[s] + k], force_torque_size));
  }

  // _upright_reward(physics, deviation_angle): `deviation` is np.cos(np.deg2rad(deviation_angle)).
  double upright_reward(double deviation) const {
    return tolerance(torso_upright(),
                     {.lower = deviation, .upper = kInf, .margin = 1 + deviation, .sigmoid = Sigmoid::kLinear, .value_at_margin = 0},
                     Arg::array(1));  // torso_upright(): a 0-d array
  }

  double torso_upright() const { return xmat(torso_, 2, 2); }
  const double* torso_velocity() const { return d_->sensordata + velocimeter_; }
  // v.dot(torso_frame): a world vector in the torso's frame.
  void in_torso_frame(const double* v, double* out) const { npk::vec_mat(v, d_->xmat + 9 * torso_, 3, 3, out); }
  const double* torso_pos() const { return d_->xpos + 3 * torso_; }

  int torso_, root_, velocimeter_;

 private:
  std::vector<int> hinges_, imu_, force_torque_;
};

}  // namespace envhive::dmc
