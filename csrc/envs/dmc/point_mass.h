// dm_control's point_mass domain (suite/point_mass.py): easy, hard. hard mixes the two controls
// through random directions written into the model (wrap_prm), so its envs have their own copy.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class PointMassEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return {{"position", {m.nq}}, {"velocity", {m.nv}}}; }

  PointMassEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        randomize_gains_(t.task == "hard"),
        target_(id(mjOBJ_GEOM, "target")),
        pointmass_(id(mjOBJ_GEOM, "pointmass")) {
    if (randomize_gains_) own_model();
  }

 protected:
  void initialize_episode() override {
    randomize_limited_and_rotational_joints();
    if (!randomize_gains_) return;
    double dir1[2], dir2[2];
    draw_direction(dir1);
    do draw_direction(dir2);
    while (std::abs(npk::dot(dir1, dir2, 2)) > 0.9);  // not parallel
    mjModel* m = own_model();
    m->wrap_prm[0] = dir1[0];
    m->wrap_prm[1] = dir1[1];
    m->wrap_prm[2] = dir2[0];
    m->wrap_prm[3] = dir2[1];
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos, static_cast<size_t>(m_->nq));
    put_velocity(w);
  }

  double reward() const override {
    const double target_size = m_->geom_size[3 * target_];
    double to_target[3];
    for (int k = 0; k < 3; ++k) to_target[k] = d_->geom_xpos[3 * target_ + k] - d_->geom_xpos[3 * pointmass_ + k];
    const double near_target = tolerance(npk::norm(to_target, 3), {.lower = 0, .upper = target_size, .margin = target_size});
    return near_target * ((small_control_mean() + 4) / 5);  // small_control = (control_reward + 4) / 5
  }

 private:
  void draw_direction(double* dir) {
    dir[0] = random().standard_normal();
    dir[1] = random().standard_normal();
    const double norm = npk::norm(dir, 2);
    dir[0] /= norm;
    dir[1] /= norm;
  }

  bool randomize_gains_;
  int target_, pointmass_;
};

}  // namespace envhive::dmc
