// dm_control's cheetah domain (suite/cheetah.py): run.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class CheetahEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) { return {{"position", {m.nq - 1}}, {"velocity", {m.nv}}}; }

  CheetahEnv(const Params& p, int env_id, const DmcTask&)
      : DmcEnv(p, env_id), subtreelinvel_(sensor_adr("torso_subtreelinvel")) {}

 protected:
  void initialize_episode() override {
    // Limited joints uniformly in their range (qpos index == joint index: nq == njnt), then 200
    // physics steps to let the cheetah settle, and the clock back to 0.
    for (int j = 0; j < m_->njnt; ++j)
      if (m_->jnt_limited[j]) d_->qpos[j] = random().uniform(m_->jnt_range[2 * j], m_->jnt_range[2 * j + 1]);
    physics_step(200);
    d_->time = 0;
  }

  void observe(ObsWriter& w) const override {
    w.put(d_->qpos + 1, static_cast<size_t>(m_->nq - 1));  // position: all but the root's x
    put_velocity(w);
  }

  double reward() const override {
    constexpr double kRunSpeed = 10;
    return tolerance(d_->sensordata[subtreelinvel_],
                     {.lower = kRunSpeed, .upper = kInf, .margin = kRunSpeed, .sigmoid = Sigmoid::kLinear, .value_at_margin = 0});
  }

 private:
  int subtreelinvel_;
};

}  // namespace envhive::dmc
