// Reacher-v4 / Reacher-v5: gymnasium.envs.mujoco.reacher_v4 / reacher_v5.ReacherEnv.
#pragma once

#include <cmath>

#include "mujoco_env.h"

namespace envhive::mujoco {

class ReacherEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double reward_dist_weight = 1.0, reward_control_weight = 1.0;
  };

  static std::vector<ConfigField> config(bool v5) {
    if (!v5) return {};
    return {xml_file_field("reacher.xml"),
            frame_skip_field(2),
            {"reward_dist_weight", 1.0, "Weight of the fingertip-to-target distance."},
            {"reward_control_weight", 1.0, "Weight of the control cost."}};
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, "reacher.xml", 2);
    if (v5) {
      p.reward_dist_weight = c.real("reward_dist_weight");
      p.reward_control_weight = c.real("reward_control_weight");
    }
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    for (const char* name : {"fingertip", "target"})
      if (mj_name2id(&m, mjOBJ_BODY, name) < 0)
        throw std::invalid_argument(std::string("Reacher needs a body named '") + name + "'");
    if (m.nq < 4 || m.nv < 2) throw std::invalid_argument("Reacher needs a model with nq >= 4, nv >= 2");
    // cos, sin of the two arm angles, qpos[2:], qvel[:2], fingertip - target ([:2] in v5).
    Spaces s = mujoco_spaces(m, 4 + (m.nq - 2) + 2 + (p.v5 ? 2 : 3));
    s.infos = float64_infos({"reward_dist", "reward_ctrl"});
    return s;
  }

  ReacherEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    fingertip_ = body_id("fingertip");
    target_ = body_id("target");
    post_constraint_ = false;
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const size_t nu = static_cast<size_t>(m_->nu);
    if (p_.v5) do_simulation(a);  // v4 scores the state before the action
    double vec[3];
    diff(vec);
    reward_dist_ = -np_norm(vec, 3) * (p_.v5 ? p_.reward_dist_weight : 1.0);
    const float ctrl = p_.v5 ? -np_sum_squares(a, nu) * static_cast<float>(p_.reward_control_weight)
                             : -np_sum_squares(a, nu);
    reward_ctrl_ = static_cast<double>(ctrl);
    const double reward = reward_dist_ + reward_ctrl_;
    if (!p_.v5) do_simulation(a);
    return {reward, false};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    // np.cos(theta), np.sin(theta) of theta = qpos[:2] (numpy's loops over a 2-element array)
    w.put(npk::element(npk::Ufunc::kCos, d_->qpos[0], 2));
    w.put(npk::element(npk::Ufunc::kCos, d_->qpos[1], 2));
    w.put(npk::element(npk::Ufunc::kSin, d_->qpos[0], 2));
    w.put(npk::element(npk::Ufunc::kSin, d_->qpos[1], 2));
    w.put(d_->qpos + 2, static_cast<size_t>(m_->nq) - 2);
    w.put(d_->qvel, 2);
    double vec[3];
    diff(vec);
    w.put(vec[0]);
    w.put(vec[1]);
    if (!p_.v5) w.put(vec[2]);
  }

  void write_info(void* const* dst) const override {
    put_infos(dst, {reward_dist_, reward_ctrl_});
  }

 protected:
  void reset_model() override {
    const int nq = m_->nq, nv = m_->nv;
    for (int i = 0; i < nq; ++i) qpos_buf_[i] = uniform(-0.1, 0.1) + init_qpos_[i];
    double goal[2];
    for (;;) {
      goal[0] = uniform(-0.2, 0.2);
      goal[1] = uniform(-0.2, 0.2);
      if (np_norm(goal, 2) < 0.2) break;
    }
    qpos_buf_[nq - 2] = goal[0];
    qpos_buf_[nq - 1] = goal[1];
    for (int i = 0; i < nv; ++i) qvel_buf_[i] = init_qvel_[i] + uniform(-0.005, 0.005);
    qvel_buf_[nv - 2] = qvel_buf_[nv - 1] = 0.0;
    set_state(qpos_buf_.data(), qvel_buf_.data());
    reward_dist_ = reward_ctrl_ = 0.0;
  }

 private:
  void diff(double out[3]) const {
    for (int k = 0; k < 3; ++k) out[k] = d_->xpos[3 * fingertip_ + k] - d_->xpos[3 * target_ + k];
  }

  Params p_;
  int fingertip_ = 0, target_ = 0;
  double reward_dist_ = 0, reward_ctrl_ = 0;
};

}  // namespace envhive::mujoco
