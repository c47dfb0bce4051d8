// dm_control's humanoid (suite/humanoid.py: stand, walk, run, run_pure_state) and humanoid_CMU
// (suite/humanoid_CMU.py: stand, walk, run) domains: the same task on two bodies, which differ in
// their names (torso / thorax, left_hand / lhand, ...) and the torso axis that counts as upright.
#pragma once

#include "dmc_env.h"

namespace envhive::dmc {

class HumanoidEnv final : public DmcEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params& p) {
    if (p.task.task == "run_pure_state") return {{"position", {m.nq}}, {"velocity", {m.nv}}};
    return {{"joint_angles", {m.nq - 7}}, {"head_height", {}},   {"extremities", {12}},
            {"torso_vertical", {3}},      {"com_velocity", {3}}, {"velocity", {m.nv}}};
  }

  HumanoidEnv(const Params& p, int env_id, const DmcTask& t)
      : DmcEnv(p, env_id),
        cmu_(t.domain == "humanoid_CMU"),
        move_speed_(t.task == "stand" ? 0.0 : t.task == "walk" ? 1.0 : 10.0),
        pure_state_(t.task == "run_pure_state"),
        torso_(body(cmu_ ? "thorax" : "torso")),
        head_(body("head")),
        subtreelinvel_(sensor_adr(cmu_ ? "thorax_subtreelinvel" : "torso_subtreelinvel")) {
    const char* const limbs[2][4] = {{"left_hand", "left_foot", "right_hand", "right_foot"}, {"lhand", "lfoot", "rhand", "rfoot"}};
    for (int i = 0; i < 4; ++i) limbs_[i] = body(limbs[cmu_][i]);
  }

 protected:
  void initialize_episode() override {
    do {  // a random configuration free of contacts
      randomize_limited_and_rotational_joints();
      forward_without_actuation();
    } while (d_->ncon > 0);
  }

  void observe(ObsWriter& w) const override {
    if (pure_state_) {
      w.put(d_->qpos, static_cast<size_t>(m_->nq));
      put_velocity(w);
      return;
    }
    w.put(d_->qpos + 7, static_cast<size_t>(m_->nq - 7));  // joint_angles: all but the free root
    w.put(head_height());
    const double* frame = d_->xmat + 9 * torso_;  // extremities: each limb in the torso's frame
    for (const int limb : limbs_) {
      double torso_to_limb[3];
      for (int k = 0; k < 3; ++k) torso_to_limb[k] = d_->xpos[3 * limb + k] - d_->xpos[3 * torso_ + k];
      double in_frame[3];
      npk::vec_mat(torso_to_limb, frame, 3, 3, in_frame);
      w.put(in_frame, 3);
    }
    w.put(frame + 6, 3);  // torso_vertical: (zx, zy, zz)
    w.put(d_->sensordata + subtreelinvel_, 3);  // com_velocity
    put_velocity(w);
  }

  double reward() const override {
    constexpr double kStandHeight = 1.4;
    const double standing = tolerance(head_height(), {.lower = kStandHeight, .upper = kInf, .margin = kStandHeight / 4});
    const double upright_axis = cmu_ ? xmat(torso_, 2, 1) : xmat(torso_, 2, 2);  // 'zy' / 'zz'
    const double upright =
        tolerance(upright_axis, {.lower = 0.9, .upper = kInf, .margin = 1.9, .sigmoid = Sigmoid::kLinear, .value_at_margin = 0});
    const double stand_reward = standing * upright;
    const double small_control = (4 + small_control_mean()) / 5;
    const double* com_velocity = d_->sensordata + subtreelinvel_;
    if (move_speed_ == 0) {
      const double dont_move =
          (tolerance(com_velocity[0], {.margin = 2}, Arg::array(2)) + tolerance(com_velocity[1], {.margin = 2}, Arg::array(2))) / 2;
      return small_control * stand_reward * dont_move;
    }
    const double move = tolerance(npk::norm(com_velocity, 2), {.lower = move_speed_,
                                                                 .upper = kInf,
                                                                 .margin = move_speed_,
                                                                 .sigmoid = Sigmoid::kLinear,
                                                                 .value_at_margin = 0});
    return small_control * stand_reward * ((5 * move + 1) / 6);
  }

 private:
  double head_height() const { return d_->xpos[3 * head_ + 2]; }

  bool cmu_;
  double move_speed_;
  bool pure_state_;
  int torso_, head_, subtreelinvel_;
  int limbs_[4];
};

}  // namespace envhive::dmc
