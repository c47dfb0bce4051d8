// hammer-v3: pick a hammer up and drive a nail into a box.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Hammer final : public SawyerEnv {
 public:
  Hammer(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0, 0.4, 0.2};
    hammer_ = body("hammer");
    nail_ = body("nail_link");
    box_ = body("box");
    goal_site_ = site("goal");
    nail_qpos_ = m_->jnt_qposadr[joint("NailSlideJoint")];
  }

 protected:
  void reset_model() override {
    reset_hand();
    set_model_body_pos(box_, {0.24, 0.85, 0.0});
    target_pos_ = site_xpos(goal_site_);  // no mj_forward since the box moved
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_obj_xyz_default(obj_init_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 a = body_xpos(hammer_), b = body_xpos(nail_);
    std::copy(a.begin(), a.end(), out);
    std::copy(b.begin(), b.end(), out + 3);
    return 6;
  }
  int quat_objects(double* out) const override {
    body_quat(hammer_, out);
    body_quat(nail_, out + 4);
    return 8;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 hand = vec3(obs), hammer = vec3(obs + 4);
    const Vec3 head = hammer + Vec3{0.16, 0.06, 0.0};
    Vec3 threshed = hammer;
    if (std::abs(hammer[0] - hand[0]) < 0.14 / 2.0) threshed[0] = hand[0];
    const double d[4] = {obs[7] - 1.0, obs[8] - 0.0, obs[9] - 0.0, obs[10] - 0.0};
    const double q = 1.0 - norm(d, 4) / 0.4;
    const double quat = 0.0 > q ? 0.0 : q;
    const Num grab = gripper_caging_reward(action, threshed, 0.015, 0.02, 0.01, 0.01, 1.0, true);
    const double in_place =
        0.1 * static_cast<double>(head[2] > 0.02) + 0.9 * tolerance(norm(target_pos_ - head), 0, 0.02, 0.2);
    Num reward = (py(2.0) * grab + py(6.0 * in_place)) * py(quat);
    const bool success = d_->qpos[nail_qpos_] > 0.09;
    if (success && reward > py(5.0)) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = success;
    e.near_object = quat;
    e.grasp_success = grab >= py(0.5);
    e.grasp_reward = grab.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = 0;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int hammer_ = -1, nail_ = -1, box_ = -1, goal_site_ = -1, nail_qpos_ = 0;
};

}  // namespace

TaskEntry hammer_task() {
  TaskInfo t;
  t.name = "hammer-v3";
  t.xml = "sawyer_xyz/sawyer_hammer.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.4, 0.0};
  t.rand_high = {0.1, 0.5, 0.0};
  t.goal_low = {0.2399, 0.7399, 0.109};
  t.goal_high = {0.2401, 0.7401, 0.111};
  return {t, &draw_once, &make_env<Hammer>};
}

}  // namespace envhive::metaworld
