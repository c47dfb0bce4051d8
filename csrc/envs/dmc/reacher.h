// dm_control's reacher domain (suite/reacher.py): easy, hard. Each episode moves the target geom,
// so every env has its own model copy.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class ReacherEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    return {{"position", {m.nq}}, {"to_target", {2}}, {"velocity", {m.nv}}};
  }

  ReacherEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        target_size_(t.task == "easy" ? .05 : .015),
        target_(id(mjOBJ_GEOM, "target")),
        finger_(id(mjOBJ_GEOM, "finger")) {
    own_model();
  }

 protected:
  void initialize_episode() override {
    mjModel* m = own_model();
    m->geom_size[3 * target_] = target_size_;
    randomize_limited_and_rotational_joints();
    const double angle = random().uniform(0, 2 * npcompat::kPi);
    const double radius = random().uniform(.05, .20);
    m->geom_pos[3 * target_] = radius * npk::scalar(npk::Ufunc::kSin, angle);
    m->geom_pos[3 * target_ + 1] = radius * npk::scalar(npk::Ufunc::kCos, angle);
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos, static_cast<size_t>(m_->nq));  // position
    w.put(finger_to_target(0));                    // to_target
    w.put(finger_to_target(1));
    put_velocity(w);
  }

  double reward() const override {
    const double radii = m_->geom_size[3 * target_] + m_->geom_size[3 * finger_];
    const double to_target[2] = {finger_to_target(0), finger_to_target(1)};
    return tolerance(npk::norm(to_target, 2), {.lower = 0, .upper = radii});
  }

 private:
  double finger_to_target(int k) const { return d_->geom_xpos[3 * target_ + k] - d_->geom_xpos[3 * finger_ + k]; }

  double target_size_;
  int target_, finger_;
};

}  // namespace envhive::dmc
