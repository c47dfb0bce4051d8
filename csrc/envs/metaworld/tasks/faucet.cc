// faucet-open-v3, faucet-close-v3: turn a faucet's handle one way or the other.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Faucet : public SawyerEnv {
 public:
  Faucet(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool open) : SawyerEnv(s, std::move(m)), open_(open) {
    hand_init_pos_ = {0.0, 0.4, 0.2};
    base_ = body("faucetBase");
    handle_ = site(open ? "handleStartOpen" : "handleStartClose");
    goal_site_ = site(open ? "goal_open" : "goal_close");
  }

 protected:
  static constexpr double kHandleLength = 0.175, kTargetRadius = 0.07;
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_model_body_pos(base_, obj_init_pos_);
    target_pos_ = obj_init_pos_ + Vec3{open_ ? +kHandleLength : -kHandleLength, 0.0, 0.125};
    if (!open_) mj_forward(m_, d_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(handle_) + Vec3{0.0, 0.0, -0.01};
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(base_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = open_ ? vec3(obs + 4) + Vec3{-0.04, 0.0, 0.03} : vec3(obs + 4);
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(obj_init_pos_ - target_pos_);
    const double in_place =
        tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    const double radius = 0.01;
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(obj_init_pos_ - init_tcp_);
    const double reach = tolerance(tcp_to_obj, 0, radius, std::abs(tcp_to_obj_init - radius), Sigmoid::kGaussian);
    double reward = 2 * reach + 3 * in_place;
    reward *= 2;
    if (target_to_obj <= kTargetRadius) reward = 10;
    Eval e;
    e.reward = py(reward);
    e.success = target_to_obj <= 0.07;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  bool open_;
  int base_ = -1, handle_ = -1, goal_site_ = -1;
};

template <bool kOpen>
class FaucetTask final : public Faucet {
 public:
  FaucetTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Faucet(s, std::move(m), kOpen) {}
};

TaskInfo info(const char* name, double x) {
  TaskInfo t;
  t.name = name;
  t.xml = "sawyer_xyz/sawyer_faucet.xml";
  t.hand_low = {-0.5, 0.40, -0.15};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-x, 0.8, 0.0};
  t.rand_high = {x, 0.85, 0.0};
  t.goal_low = t.hand_low;
  t.goal_high = t.hand_high;
  return t;
}

}  // namespace

TaskEntry faucet_open_task() { return {info("faucet-open-v3", 0.05), &draw_once, &make_env<FaucetTask<true>>}; }
TaskEntry faucet_close_task() { return {info("faucet-close-v3", 0.1), &draw_once, &make_env<FaucetTask<false>>}; }

}  // namespace envhive::metaworld
