// dial-turn-v3: turn a dial a quarter round.
#include <cmath>

#include "../numerics.h"
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class DialTurn final : public SawyerEnv {
 public:
  DialTurn(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    dial_ = body("dial");
    knob_qpos_ = m_->jnt_qposadr[joint("knob_Joint_1")];
    goal_site_ = site("goal");
  }

 protected:
  // The point on the dial's rim: its centre + 0.05 * (sin a, -cos a, 0) (np.sin / np.cos of the
  // one-element qpos view: numpy's own loops, numerics.h).
  Vec3 dial_point() const {
    const double angle = d_->qpos[knob_qpos_];
    Vec3 offset{np_sin(angle), -np_cos(angle), 0.0};
    offset = offset * 0.05;
    return body_xpos(dial_) + offset;
  }
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = obj_init_pos_ + Vec3{0, 0.03, 0.03};
    set_model_body_pos(dial_, obj_init_pos_);
    dial_push_position_ = dial_point() + Vec3{0.05, 0.02, 0.09};  // no mj_forward: as the hand reset left it
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = dial_point();
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(dial_, out);
    return 4;
  }
  Eval evaluate_state(const double* /*obs*/, const float* action) override {
    const Vec3 obj = dial_point();
    const Vec3 push_position = dial_point() + Vec3{0.05, 0.02, 0.09};
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(dial_push_position_ - target_pos_);
    const double in_place = tolerance(target_to_obj, 0, 0.07, std::abs(target_to_obj_init - 0.07));
    const double radius = 0.005;
    const double tcp_to_obj = norm(push_position - tcp_center());
    const double tcp_to_obj_init = norm(dial_push_position_ - init_tcp_);
    const double reach0 = tolerance(tcp_to_obj, 0, radius, std::abs(tcp_to_obj_init - radius), Sigmoid::kGaussian);
    const float a = action[3];  // min(max(0, action[-1]), 1)
    Num closed = a > 0.0f ? f32(a) : py(0);
    if (py(1) < closed) closed = py(1);
    const Num reach = hamacher_product(py(reach0), closed);
    const Num reward = py(10) * hamacher_product(reach, py(in_place));
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= 0.07;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int dial_ = -1, knob_qpos_ = 0, goal_site_ = -1;
  Vec3 dial_push_position_{};
};

}  // namespace

TaskEntry dial_turn_task() {
  TaskInfo t;
  t.name = "dial-turn-v3";
  t.xml = "sawyer_xyz/sawyer_dial.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.7, 0.0};
  t.rand_high = {0.1, 0.8, 0.0};
  t.goal_low = {-0.1, 0.73, 0.0299};
  t.goal_high = {0.1, 0.83, 0.0301};
  return {t, &draw_once, &make_env<DialTurn>};
}

}  // namespace envhive::metaworld
