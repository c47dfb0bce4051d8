// What dm_control's manipulator and stacker domains share (suite/manipulator.py, suite/stacker.py):
// the planar arm, its initial joint draws and its observations (arm_pos, arm_vel, touch, 2D poses),
// and site distances.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class PlanarArmEnv : public DmcEnv {
 public:
  static constexpr int kArmJoints = 8;

 protected:
  PlanarArmEnv(const Params& p, int env_id) : DmcEnv(p, env_id) {
    const char* const names[kArmJoints] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                                           "finger",   "fingertip",    "thumb",     "thumbtip"};
    for (int i = 0; i < kArmJoints; ++i) arm_[i] = id(mjOBJ_JOINT, names[i]);
    finger_ = joint_qpos("finger");
    thumb_ = joint_qpos("thumb");
    own_model();  // both domains move their targets every episode
  }

  // Arm joints uniformly in their range (or [-pi, pi] when unlimited), then finger = thumb.
  void draw_arm() {
    for (const int j : arm_) {
      const bool limited = m_->jnt_limited[j];
      const double lo = limited ? m_->jnt_range[2 * j] : -npcompat::kPi;
      const double hi = limited ? m_->jnt_range[2 * j + 1] : npcompat::kPi;
      d_->qpos[m_->jnt_qposadr[j]] = random().uniform(lo, hi);
    }
    d_->qpos[finger_] = d_->qpos[thumb_];
  }

  // arm_pos ((sin, cos) per joint), arm_vel, touch (log1p of the touch sensors, listed in order).
  void put_arm(ObsWriter& w, const int* touch, int n_touch) const {
    for (const int j : arm_) {
      const double q = d_->qpos[m_->jnt_qposadr[j]];
      w.put(npk::element(npk::Ufunc::kSin, q, std::size(arm_)));  // np.sin(qpos[_ARM_JOINTS])
      w.put(npk::element(npk::Ufunc::kCos, q, std::size(arm_)));
    }
    for (const int j : arm_) w.put(d_->qvel[m_->jnt_dofadr[j]]);
    for (int i = 0; i < n_touch; ++i)  // np.log1p of the touch sensors' array
      w.put(npk::element(npk::Ufunc::kLog1p, d_->sensordata[touch[i]], static_cast<size_t>(n_touch)));
  }
  // body_2d_pose: x, z, and with the orientation qw, qy.
  void put_pose(ObsWriter& w, int body, bool orientation = true) const {
    w.put(d_->xpos[3 * body]);
    w.put(d_->xpos[3 * body + 2]);
    if (!orientation) return;
    w.put(d_->xquat[4 * body]);
    w.put(d_->xquat[4 * body + 2]);
  }
  // site_distance(site1, site2): |site1 - site2|.
  double site_distance(int site1, int site2) const {
    double v[3];
    for (int k = 0; k < 3; ++k) v[k] = d_->site_xpos[3 * site1 + k] - d_->site_xpos[3 * site2 + k];
    return npk::norm(v, 3);
  }
  int site(const char* name) const { return id(mjOBJ_SITE, name); }

 private:
  int arm_[kArmJoints];
  int finger_, thumb_;
};

}  // namespace envhive::dmc
