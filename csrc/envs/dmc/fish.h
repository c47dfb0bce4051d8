// dm_control's fish domain (suite/fish.py): upright, swim. Each episode edits the target geom
// (hidden for upright, moved for swim), so every env has its own model copy.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class FishEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params& p) {
    if (p.task.task == "swim") return {{"joint_angles", {7}}, {"upright", {}}, {"target", {3}}, {"velocity", {m.nv}}};
    return {{"joint_angles", {7}}, {"upright", {}}, {"velocity", {m.nv}}};
  }

  FishEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        swim_(t.task == "swim"),
        torso_(body("torso")),
        root_(joint_qpos("root")),
        target_(id(mjOBJ_GEOM, "target")),
        mouth_(id(mjOBJ_GEOM, "mouth")) {
    const char* const joints[7] = {"tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll", "finleft_pitch"};
    for (int i = 0; i < 7; ++i) {
      joint_qpos_[i] = joint_qpos(joints[i]);
      joint_dof_[i] = joint_dof(joints[i]);
    }
    own_model();
  }

 protected:
  void initialize_episode() override {
    double quat[4];
    for (double& q : quat) q = random().standard_normal();
    const double norm = npk::norm(quat, 4);
    for (int k = 0; k < 4; ++k) d_->qpos[root_ + 3 + k] = quat[k] / norm;
    for (const int j : joint_qpos_) d_->qpos[j] = random().uniform(-.2, .2);
    mjModel* m = own_model();
    if (!swim_) {
      m->geom_rgba[4 * target_ + 3] = 0;
      return;
    }
    m->geom_pos[3 * target_] = random().uniform(-.4, .4);
    m->geom_pos[3 * target_ + 1] = random().uniform(-.4, .4);
    m->geom_pos[3 * target_ + 2] = random().uniform(.1, .3);
  }

  void observe(ObsWriter& w) const override {
    for (const int j : joint_qpos_) w.put(d_->qpos[j]);  // joint_angles
    w.put(upright());
    if (swim_) {
      double target[3];
      mouth_to_target(target);
      w.put(target, 3);
    }
    put_velocity(w);
  }

  double reward() const override {
    if (!swim_) return tolerance(upright(), {.lower = 1, .upper = 1, .margin = 1});
    const double radii = m_->geom_size[3 * mouth_] + m_->geom_size[3 * target_];
    double target[3];
    mouth_to_target(target);
    const double in_target = tolerance(npk::norm(target, 3), {.lower = 0, .upper = radii, .margin = 2 * radii});
    const double is_upright = 0.5 * (upright() + 1);
    return (7 * in_target + is_upright) / 8;
  }

 private:
  double upright() const { return xmat(torso_, 2, 2); }
  // The target in the mouth's frame.
  void mouth_to_target(double* out) const {
    double global[3];
    for (int k = 0; k < 3; ++k) global[k] = d_->geom_xpos[3 * target_ + k] - d_->geom_xpos[3 * mouth_ + k];
    npk::vec_mat(global, d_->geom_xmat + 9 * mouth_, 3, 3, out);
  }

  bool swim_;
  int torso_, root_, target_, mouth_;
  int joint_qpos_[7], joint_dof_[7];
};

}  // namespace envhive::dmc
