// dm_control's finger domain (suite/finger.py): spin, turn_easy, turn_hard. Each episode edits the
// model (the hinge's damping, the target site), so every env has its own copy.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class FingerEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel&, const Params& p) {
    ObsLeaves leaves = {{"position", {4}}, {"velocity", {3}}, {"touch", {2}}};
    if (p.task.task != "spin") {
      leaves.push_back({"target_position", {2}});
      leaves.push_back({"dist_to_target", {}});
    }
    return leaves;
  }

  FingerEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        turn_(t.task != "spin"),
        target_radius_(t.task == "turn_easy" ? 0.07 : 0.03),
        target_(id(mjOBJ_SITE, "target")),
        tip_site_(id(mjOBJ_SITE, "tip")),
        hinge_(id(mjOBJ_JOINT, "hinge")),
        cap1_(id(mjOBJ_GEOM, "cap1")),
        proximal_(sensor_adr("proximal")),
        distal_(sensor_adr("distal")),
        proximal_velocity_(sensor_adr("proximal_velocity")),
        distal_velocity_(sensor_adr("distal_velocity")),
        hinge_velocity_(sensor_adr("hinge_velocity")),
        touchtop_(sensor_adr("touchtop")),
        touchbottom_(sensor_adr("touchbottom")),
        tip_(sensor_adr("tip")),
        target_sensor_(sensor_adr("target")),
        spinner_(sensor_adr("spinner")) {
    own_model();
  }

 protected:
  void initialize_episode() override {
    mjModel* m = own_model();
    if (!turn_) {
      m->site_rgba[4 * target_ + 3] = 0;
      m->site_rgba[4 * tip_site_ + 3] = 0;
      m->dof_damping[m->jnt_dofadr[hinge_]] = .03;
    } else {
      const double target_angle = random().uniform(-npcompat::kPi, npcompat::kPi);
      const double hinge_x = d_->xanchor[3 * hinge_], hinge_z = d_->xanchor[3 * hinge_ + 2];
      const double* size = m->geom_size + 3 * cap1_;
      const double radius = size[0] + size[1] + size[2];
      m->site_pos[3 * target_] = hinge_x + radius * npk::scalar(npk::Ufunc::kSin, target_angle);
      m->site_pos[3 * target_ + 2] = hinge_z + radius * npk::scalar(npk::Ufunc::kCos, target_angle);
      m->site_size[3 * target_] = target_radius_;
    }
    // _set_random_joint_angles: until the fingers touch nothing
    for (int attempt = 0;; ++attempt) {
      if (attempt == 1000) throw std::runtime_error("Could not find a collision-free state after 1000 attempts");
      randomize_limited_and_rotational_joints();
      forward_without_actuation();
      if (d_->ncon == 0) break;
    }
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->sensordata[proximal_]);  // position
    w.put(d_->sensordata[distal_]);
    w.put(tip_position(0));
    w.put(tip_position(2));
    w.put(d_->sensordata[proximal_velocity_]);  // velocity
    w.put(d_->sensordata[distal_velocity_]);
    w.put(d_->sensordata[hinge_velocity_]);
    w.put(npk::element(npk::Ufunc::kLog1p, d_->sensordata[touchtop_], 2));  // touch: np.log1p of 2 sensors
    w.put(npk::element(npk::Ufunc::kLog1p, d_->sensordata[touchbottom_], 2));
    if (!turn_) return;
    w.put(target_position(0));
    w.put(target_position(2));
    w.put(dist_to_target());
  }

  double reward() const override {
    if (!turn_) return d_->sensordata[hinge_velocity_] <= -15.0 ? 1.0 : 0.0;
    return dist_to_target() <= 0 ? 1.0 : 0.0;
  }

 private:
  double tip_position(int k) const { return d_->sensordata[tip_ + k] - d_->sensordata[spinner_ + k]; }
  double target_position(int k) const { return d_->sensordata[target_sensor_ + k] - d_->sensordata[spinner_ + k]; }
  double dist_to_target() const {
    const double to_target[2] = {target_position(0) - tip_position(0), target_position(2) - tip_position(2)};
    return npk::norm(to_target, 2) - m_->site_size[3 * target_];
  }

  bool turn_;
  double target_radius_;
  int target_, tip_site_, hinge_, cap1_;
  int proximal_, distal_, proximal_velocity_, distal_velocity_, hinge_velocity_, touchtop_, touchbottom_;
  int tip_, target_sensor_, spinner_;
};

}  // namespace envhive::dmc
