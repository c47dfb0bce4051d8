// dm_control's manipulator domain (suite/manipulator.py): bring_ball, bring_peg, insert_ball,
// insert_peg (fully_observable as the suite's kwarg, default True). The props come from the XML dm_control
// builds for each task.
//
// Known difference: an episode that starts with the object in the hand (probability 0.1) places it
// at an angle computed by np.arctan2, numpy's SIMD kernel (SVML), which differs from libm's atan2 in
// the last bit for ~2% of arguments; such an episode can then drift from dm_control's.
#pragma once

#include "planar_arm.h"

namespace envhive::dmc {

class ManipulatorEnv final : public PlanarArmEnv {
 public:
  static ObsLeaves observation(const mjModel&, const Params& p) {
    if (!p.fully_observable) return {{"arm_pos", {kArmJoints, 2}}, {"arm_vel", {kArmJoints}}, {"touch", {5}}};
    return {{"arm_pos", {kArmJoints, 2}}, {"arm_vel", {kArmJoints}}, {"touch", {5}},     {"hand_pos", {4}},
            {"object_pos", {4}},          {"object_vel", {3}},       {"target_pos", {4}}};
  }

  ManipulatorEnv(const Params& p, int env_id, const DmcTask& t)
      : PlanarArmEnv(p, env_id),
        fully_observable_(p.fully_observable),
        use_peg_(t.task.ends_with("peg")),
        insert_(t.task.starts_with("insert")),
        hand_(body("hand")),
        object_(body(use_peg_ ? "peg" : "ball")),
        target_(body(use_peg_ ? "target_peg" : "target_ball")),
        receptacle_(insert_ ? body(use_peg_ ? "slot" : "cup") : -1),
        grasp_(site("grasp")) {
    const std::string object = use_peg_ ? "peg" : "ball";
    for (int i = 0; i < 3; ++i) object_joints_[i] = id(mjOBJ_JOINT, (object + "_" + "xzy"[i]).c_str());
    const char* const touch[5] = {"palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch"};
    for (int i = 0; i < 5; ++i) touch_[i] = sensor_adr(touch[i]);
    if (use_peg_) {
      peg_grasp_ = site("peg_grasp");
      peg_pinch_ = site("peg_pinch");
      pinch_ = site("pinch");
      peg_ = site("peg");
      target_peg_ = site("target_peg");
      target_peg_tip_ = site("target_peg_tip");
      peg_tip_ = site("peg_tip");
    } else {
      ball_ = site("ball");
      target_ball_ = site("target_ball");
    }
  }

 protected:
  void initialize_episode() override {
    mjModel* m = own_model();
    do {
      draw_arm();
      const double target_x = random().uniform(-.4, .4), target_z = random().uniform(.1, .4);
      double target_angle;
      if (insert_) {
        target_angle = random().uniform(-npcompat::kPi / 3, npcompat::kPi / 3);
        set_pose(m, receptacle_, target_x, target_z, target_angle);
      } else {
        target_angle = random().uniform(-npcompat::kPi, npcompat::kPi);
      }
      set_pose(m, target_, target_x, target_z, target_angle);
      // choice(['in_hand', 'in_target', 'uniform'], p=[.1, .1, .8]): searchsorted of one draw in the cdf
      const double u = random().random_sample();
      const double cdf[3] = {.1, .1 + .1, (.1 + .1) + (1 - .1 - .1)};
      double object_x, object_z, object_angle;
      if (u >= cdf[0] && u < cdf[1]) {  // in_target
        object_x = target_x;
        object_z = target_z;
        object_angle = target_angle;
      } else if (u < cdf[0]) {  // in_hand
        forward_without_actuation();
        object_x = d_->site_xpos[3 * grasp_];
        object_z = d_->site_xpos[3 * grasp_ + 2];
        const double* grasp = d_->site_xmat + 9 * grasp_;
        object_angle = npcompat::kPi - npk::scalar(npk::Ufunc::kArctan2, grasp[6], grasp[0]);  // (xx, zx)
      } else {  // uniform
        object_x = random().uniform(-.5, .5);
        object_z = random().uniform(0, .7);
        object_angle = random().uniform(0, 2 * npcompat::kPi);
        d_->qvel[m->jnt_dofadr[object_joints_[0]]] = random().uniform(-5, 5);
      }
      d_->qpos[m->jnt_qposadr[object_joints_[0]]] = object_x;
      d_->qpos[m->jnt_qposadr[object_joints_[1]]] = object_z;
      d_->qpos[m->jnt_qposadr[object_joints_[2]]] = object_angle;
      forward_without_actuation();
    } while (d_->ncon > 0);
  }

  void observe(ObsWriter& w) const override {
    put_arm(w, touch_, 5);
    if (!fully_observable_) return;
    put_pose(w, hand_);
    put_pose(w, object_);
    for (const int j : object_joints_) w.put(d_->qvel[m_->jnt_dofadr[j]]);
    put_pose(w, target_);
  }

  double reward() const override {
    if (!use_peg_) return is_close(site_distance(ball_, target_ball_));
    const double grasping = (is_close(site_distance(peg_grasp_, grasp_)) + is_close(site_distance(peg_pinch_, pinch_))) / 2;
    const double bringing = (is_close(site_distance(peg_, target_peg_)) + is_close(site_distance(target_peg_tip_, peg_tip_))) / 2;
    return std::max(bringing, grasping / 3);
  }

 private:
  static constexpr double kClose = .01;
  static double is_close(double distance) { return tolerance(distance, {.lower = 0, .upper = kClose, .margin = kClose * 2}); }
  // body_pos[x, z] and body_quat[qw, qy] of a prop: a rotation by `angle` about y.
  static void set_pose(mjModel* m, int body, double x, double z, double angle) {
    m->body_pos[3 * body] = x;
    m->body_pos[3 * body + 2] = z;
    m->body_quat[4 * body] = npk::scalar(npk::Ufunc::kCos, angle / 2);
    m->body_quat[4 * body + 2] = npk::scalar(npk::Ufunc::kSin, angle / 2);
  }

  bool fully_observable_, use_peg_, insert_;
  int hand_, object_, target_, receptacle_, grasp_;
  int object_joints_[3], touch_[5];
  int peg_grasp_ = -1, peg_pinch_ = -1, pinch_ = -1, peg_ = -1, target_peg_ = -1, target_peg_tip_ = -1, peg_tip_ = -1;
  int ball_ = -1, target_ball_ = -1;
};

}  // namespace envhive::dmc
