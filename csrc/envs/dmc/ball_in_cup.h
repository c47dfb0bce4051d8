// dm_control's ball_in_cup domain (suite/ball_in_cup.py): catch.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class BallInCupEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return {{"position", {m.nq}}, {"velocity", {m.nv}}}; }

  BallInCupEnv(const Params& p, int env_id, const DmcTask&)
      : DmcEnv(p, env_id),
        ball_x_(joint_qpos("ball_x")),
        ball_z_(joint_qpos("ball_z")),
        target_(id(mjOBJ_SITE, "target")),
        ball_(body("ball")),
        ball_geom_(id(mjOBJ_GEOM, "ball")) {}

 protected:
  void initialize_episode() override {
    do {  // the ball anywhere it penetrates nothing
      d_->qpos[ball_x_] = random().uniform(-.2, .2);
      d_->qpos[ball_z_] = random().uniform(.2, .5);
      forward_without_actuation();
    } while (d_->ncon > 0);
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos, static_cast<size_t>(m_->nq));
    put_velocity(w);
  }

  double reward() const override {
    const double ball_size = m_->geom_size[3 * ball_geom_];
    for (const int k : {0, 2}) {
      const double ball_to_target = d_->site_xpos[3 * target_ + k] - d_->xpos[3 * ball_ + k];
      if (!(std::abs(ball_to_target) < m_->site_size[3 * target_ + k] - ball_size)) return 0.0;
    }
    return 1.0;
  }

 private:
  int ball_x_, ball_z_, target_, ball_, ball_geom_;
};

}  // namespace envhive::dmc
