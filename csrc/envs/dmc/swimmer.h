// dm_control's swimmer domain (suite/swimmer.py): swimmer6, swimmer15 (the links come from the XML
// dm_control builds for each). Each episode moves the target geom and its light, so every env has
// its own model copy.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class SwimmerEnv final : public DmcEnv {
 public:
  // joints, to_target (2), body_velocities (vx, vy, wz of each of the nu + 1 links' velocimeter/gyro)
  static ObsLeaves observation(const mjModel& m, const Params&) {
    return {{"joints", {m.nq - 3}}, {"to_target", {2}}, {"body_velocities", {3 * (m.nsensordata - 12) / 6}}};
  }

  SwimmerEnv(const Params& p, int env_id, const DmcTask&)
      : DmcEnv(p, env_id),
        target_(id(mjOBJ_GEOM, "target")),
        nose_(id(mjOBJ_GEOM, "nose")),
        head_(body("head")),
        target_light_(id(mjOBJ_LIGHT, "target_light")) {
    own_model();
  }

 protected:
  void initialize_episode() override {
    randomize_limited_and_rotational_joints();
    const bool close_target = random().random_sample() < .2;
    const double target_box = close_target ? .3 : 2;
    const double xpos = random().uniform(-target_box, target_box), ypos = random().uniform(-target_box, target_box);
    mjModel* m = own_model();
    m->geom_pos[3 * target_] = xpos;
    m->geom_pos[3 * target_ + 1] = ypos;
    m->light_pos[3 * target_light_] = xpos;
    m->light_pos[3 * target_light_ + 1] = ypos;
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos + 3, static_cast<size_t>(m_->nq - 3));  // joints
    double to_target[3];
    nose_to_target(to_target);
    w.put(to_target, 2);
    for (int i = 12; i + 6 <= m_->nsensordata; i += 6) {  // body_velocities: vx, vy, wz
      w.put(d_->sensordata[i]);
      w.put(d_->sensordata[i + 1]);
      w.put(d_->sensordata[i + 5]);
    }
  }

  double reward() const override {
    const double target_size = m_->geom_size[3 * target_];
    double to_target[3];
    nose_to_target(to_target);
    return tolerance(npk::norm(to_target, 2),
                     {.lower = 0, .upper = target_size, .margin = 5 * target_size, .sigmoid = Sigmoid::kLongTail});
  }

 private:
  // The target in the head's frame (x, y, z; dm_control keeps x and y).
  void nose_to_target(double* out) const {
    double global[3];
    for (int k = 0; k < 3; ++k) global[k] = d_->geom_xpos[3 * target_ + k] - d_->geom_xpos[3 * nose_ + k];
    npk::vec_mat(global, d_->xmat + 9 * head_, 3, 3, out);
  }

  int target_, nose_, head_, target_light_;
};

}  // namespace envhive::dmc
