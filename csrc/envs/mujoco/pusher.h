// Pusher-v4 / Pusher-v5: gymnasium.envs.mujoco.pusher_v4 / pusher_v5.PusherEnv.
// Gymnasium refuses Pusher-v4 on mujoco >= 3 (its pusher.xml behaves differently there); envhive
// runs it on the pinned MuJoCo, so its results are not those of the mujoco 2.x era.
#pragma once

#include <cmath>

#include "mujoco_env.h"

namespace envhive::mujoco {

class PusherEnv final : public MujocoEnv {
 public:
  struct Params {
    bool v5 = true;
    CommonParams common;
    double reward_near_weight = 0.5, reward_dist_weight = 1.0, reward_control_weight = 0.1;
  };

  static std::vector<ConfigField> config(bool v5) {
    if (!v5) return {};
    return {xml_file_field("pusher_v5.xml"),
            frame_skip_field(5),
            {"reward_near_weight", 0.5, "Weight of the fingertip-to-object distance."},
            {"reward_dist_weight", 1.0, "Weight of the object-to-goal distance."},
            {"reward_control_weight", 0.1, "Weight of the control cost."}};
  }

  static Params params(const Config& c, bool v5) {
    Params p;
    p.v5 = v5;
    p.common = common_params(c, v5 ? "pusher_v5.xml" : "pusher.xml", 5);
    if (v5) {
      p.reward_near_weight = c.real("reward_near_weight");
      p.reward_dist_weight = c.real("reward_dist_weight");
      p.reward_control_weight = c.real("reward_control_weight");
    }
    return p;
  }

  static Spaces spaces(const mjModel& m, const Params& p) {
    for (const char* name : {"tips_arm", "object", "goal"})
      if (mj_name2id(&m, mjOBJ_BODY, name) < 0)
        throw std::invalid_argument(std::string("Pusher needs a body named '") + name + "'");
    if (m.nq < 7 || m.nv < 7) throw std::invalid_argument("Pusher needs a model with nq, nv >= 7");
    Spaces s = mujoco_spaces(m, 7 + 7 + 9);
    s.infos = float64_infos({"reward_dist", "reward_ctrl"});
    if (p.v5) s.infos.push_back({"reward_near", DType::kFloat64, {}});
    return s;
  }

  PusherEnv(ModelPtr model, const Params& p) : MujocoEnv(std::move(model), p.common.frame_skip), p_(p) {
    tips_arm_ = body_id("tips_arm");
    object_ = body_id("object");
    goal_ = body_id("goal");
    post_constraint_ = false;
  }

  StepResult step(const void* action) override {
    const float* a = static_cast<const float*>(action);
    const size_t nu = static_cast<size_t>(m_->nu);
    double reward;
    if (p_.v5) {
      do_simulation(a);
      reward_near_ = -distance(object_, tips_arm_) * p_.reward_near_weight;
      reward_dist_ = -distance(object_, goal_) * p_.reward_dist_weight;
      // -np.square(action).sum() * weight: float32 throughout.
      const float ctrl = -np_sum_squares(a, nu) * static_cast<float>(p_.reward_control_weight);
      reward_ctrl_ = static_cast<double>(ctrl);
      reward = reward_dist_ + reward_ctrl_ + reward_near_;
    } else {
      // v4 scores the state before the action.
      const double near = -distance(object_, tips_arm_);
      reward_dist_ = -distance(object_, goal_);
      const float ctrl = -np_sum_squares(a, nu);
      reward_ctrl_ = static_cast<double>(ctrl);
      const float ctrl_term = 0.1f * ctrl;  // 0.1 * np.float32 stays float32
      reward = reward_dist_ + static_cast<double>(ctrl_term) + 0.5 * near;
      do_simulation(a);
    }
    return {reward, false};
  }

  void write_obs(void* dst) const override {
    ObsWriter w(dst);
    w.put(d_->qpos, 7);
    w.put(d_->qvel, 7);
    w.put(d_->xpos + 3 * tips_arm_, 3);
    w.put(d_->xpos + 3 * object_, 3);
    w.put(d_->xpos + 3 * goal_, 3);
  }

  void write_info(void* const* dst) const override {
    put_infos(dst, {reward_dist_, reward_ctrl_});
    if (p_.v5) put_info(dst[2], reward_near_);
  }

 protected:
  void reset_model() override {
    const int nq = m_->nq, nv = m_->nv;
    double cyl[2];
    for (;;) {
      cyl[0] = uniform(-0.3, 0.0);
      cyl[1] = uniform(-0.2, 0.2);
      if (np_norm(cyl, 2) > 0.17) break;  // goal_pos is (0, 0)
    }
    // Gymnasium writes into init_qpos itself (qpos = self.init_qpos); only these slots change.
    init_qpos_[nq - 4] = cyl[0];
    init_qpos_[nq - 3] = cyl[1];
    init_qpos_[nq - 2] = 0.0;
    init_qpos_[nq - 1] = 0.0;
    for (int i = 0; i < nv; ++i) qvel_buf_[i] = init_qvel_[i] + uniform(-0.005, 0.005);
    for (int i = nv - 4; i < nv; ++i) qvel_buf_[i] = 0.0;
    set_state(init_qpos_.data(), qvel_buf_.data());
    reward_dist_ = reward_ctrl_ = reward_near_ = 0.0;
  }

 private:
  double distance(int a, int b) const {
    const double v[3] = {d_->xpos[3 * a] - d_->xpos[3 * b], d_->xpos[3 * a + 1] - d_->xpos[3 * b + 1],
                         d_->xpos[3 * a + 2] - d_->xpos[3 * b + 2]};
    return np_norm(v, 3);
  }

  Params p_;
  int tips_arm_ = 0, object_ = 0, goal_ = 0;
  double reward_dist_ = 0, reward_ctrl_ = 0, reward_near_ = 0;
};

}  // namespace envhive::mujoco
