// What dm_control's dog tasks share (suite/dog.py, the Stand task they all extend): the initial
// state (a random heading, root velocities and actuator activations), the observation components
// and the standing reward factors. The tasks are dog.h (stand, walk, trot, run) and dog_fetch.h;
// the model is dog.xml with its meshes from the package's dog_assets, as dm_control builds it.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "dmc_env.h"

namespace envhive::dmc {

class DogBody : public DmcEnv {
 public:
  // Stand.get_observation_components.
  static ObsLeaves common_observation(const mjModel& m) {
    int64_t hinges = 0;
    for (int j = 0; j < m.njnt; ++j) hinges += m.jnt_type[j] == mjJNT_HINGE;
    return {{"joint_angles", {hinges}},     {"joint_velocites", {hinges}}, {"torso_pelvis_height", {2}},
            {"z_projection", {9}},          {"torso_com_velocity", {3}},   {"inertial_sensors", {9}},
            {"foot_forces", {12}},          {"touch_sensors", {4}},        {"actuator_state", {m.na}}};
  }

 protected:
  DogBody(const Params& p, int env_id)
      : DmcEnv(p, env_id), torso_(body("torso")), pelvis_(body("pelvis")), skull_(body("skull")), root_(joint_qpos("root")) {
    if (m_->nu != m_->na) throw std::logic_error("dog: every actuator should have an activation");
    for (int j = 0; j < m_->njnt; ++j)
      if (m_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    torso_linvel_ = sensor_adr("torso_linvel");
    const char* const inertial[3] = {"accelerometer", "velocimeter", "gyro"};
    const char* const feet[4] = {"foot_L", "foot_R", "hand_L", "hand_R"};
    const char* const touch[4] = {"palm_L", "palm_R", "sole_L", "sole_R"};
    for (int i = 0; i < 3; ++i) inertial_[i] = sensor_adr(inertial[i]);
    for (int i = 0; i < 4; ++i) feet_[i] = sensor_adr(feet[i]);
    for (int i = 0; i < 4; ++i) touch_[i] = sensor_adr(touch[i]);
  }

  // Stand.initialize_episode.
  void initialize_episode() override {
    mj_resetData(m_, d_);  // physics.reset()
    forward_without_actuation();
    // the heights above which standing is rewarded, and the body's weight
    stand_height_[0] = torso_pelvis_height(0) * kStandHeightFraction;
    stand_height_[1] = torso_pelvis_height(1) * kStandHeightFraction;
    body_weight_ = -m_->opt.gravity[2] * m_->body_subtreemass[torso_];
    // a random heading, horizontal root velocities and actuator states
    const double azimuth = random().uniform(0, 2 * npcompat::kPi);
    d_->qpos[root_ + 3] = npk::scalar(npk::Ufunc::kCos, azimuth / 2);
    d_->qpos[root_ + 4] = 0;
    d_->qpos[root_ + 5] = 0;
    d_->qpos[root_ + 6] = npk::scalar(npk::Ufunc::kSin, azimuth / 2);
    d_->qvel[0] = 2 * random().standard_normal();
    d_->qvel[1] = 2 * random().standard_normal();
    d_->qvel[5] = 2 * random().standard_normal();
    for (int a = 0; a < m_->nu; ++a) d_->act[a] = random().uniform(m_->actuator_ctrlrange[2 * a], m_->actuator_ctrlrange[2 * a + 1]);
  }

  void put_common(ObsWriter& w) const {
    for (const int j : hinges_) w.put(d_->qpos[m_->jnt_qposadr[j]]);  // joint_angles
    for (const int j : hinges_) w.put(d_->qvel[m_->jnt_dofadr[j]]);   // joint_velocites (sic)
    w.put(torso_pelvis_height(0));
    w.put(torso_pelvis_height(1));
    for (const int b : {skull_, torso_, pelvis_})  // z_projection: each body's (zx, zy, zz)
      w.put(d_->xmat + 9 * b + 6, 3);
    double com_velocity[3];
    torso_com_velocity(com_velocity);
    w.put(com_velocity, 3);
    for (const int s : inertial_) w.put(d_->sensordata + s, 3);
    for (const int s : feet_) w.put(d_->sensordata + s, 3);
    for (const int s : touch_) w.put(d_->sensordata[s]);
    w.put(d_->act, static_cast<size_t>(m_->na));  // actuator_state
  }

  // Stand.get_reward_factors, multiplied in order into `product` (np.prod is sequential).
  double standing_product() const {
    double product = tolerance(torso_pelvis_height(0), {.lower = stand_height_[0], .upper = kInf, .margin = stand_height_[0]});
    product *= tolerance(torso_pelvis_height(1), {.lower = stand_height_[1], .upper = kInf, .margin = stand_height_[1]});
    for (const int b : {skull_, torso_, pelvis_})  // upright(): each body's zz
      product *= tolerance(xmat(b, 2, 2), {.lower = min_upright_cosine(),
                                           .upper = kInf,
                                           .margin = min_upright_cosine() + 1,
                                           .sigmoid = Sigmoid::kLinear,
                                           .value_at_margin = 0},
                           Arg::array(3));  // upright(): three bodies' zz
    const double touch = npcompat::np_sum<double>(4, [this](size_t i) { return d_->sensordata[touch_[i]]; });
    product *= tolerance(touch, {.lower = body_weight_,
                                 .upper = kInf,
                                 .margin = body_weight_,
                                 .sigmoid = Sigmoid::kLinear,
                                 .value_at_margin = 0.9});
    return product;
  }

  double torso_pelvis_height(int i) const { return d_->xpos[3 * (i == 0 ? torso_ : pelvis_) + 2]; }
  // center_of_mass_velocity().dot(torso_frame)
  void torso_com_velocity(double* out) const {
    npk::vec_mat(d_->sensordata + torso_linvel_, d_->xmat + 9 * torso_, 3, 3, out);
  }

 private:
  static constexpr double kStandHeightFraction = 0.9;  // _STAND_HEIGHT_FRACTION
  // _MIN_UPRIGHT_COSINE = np.cos(np.deg2rad(30)) (deg2rad is x * (pi / 180)), once numpy's kernels
  // are installed.
  static double min_upright_cosine() {
    static const double cosine = npk::scalar(npk::Ufunc::kCos, 30 * (npcompat::kPi / 180.0));
    return cosine;
  }

  int torso_, pelvis_, skull_, root_, torso_linvel_;
  int inertial_[3], feet_[4], touch_[4];
  std::vector<int> hinges_;
  double stand_height_[2] = {0, 0};
  double body_weight_ = 0;
};

}  // namespace envhive::dmc
