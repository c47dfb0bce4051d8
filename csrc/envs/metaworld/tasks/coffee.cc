// coffee-button-v3, coffee-pull-v3, coffee-push-v3: press a coffee machine's button; pull a mug from
// under it; push a mug under it.
#include "object_task.h"

namespace envhive::metaworld {
namespace {


class CoffeeButton final : public SawyerEnv {
 public:
  CoffeeButton(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0.0, 0.4, 0.2};
    machine_ = body("coffee_machine");
    button_ = site("buttonStart");
  }

 protected:
  static constexpr double kMaxDist = 0.03;
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_model_body_pos(machine_, obj_init_pos_);
    const Vec3 pos_mug = obj_init_pos_ + Vec3{0.0, -0.22, 0.0};
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    std::copy(pos_mug.begin(), pos_mug.end(), qpos.begin());
    std::fill(qvel.begin() + 9, qvel.begin() + 15, 0.0);
    set_state(qpos.data(), qvel.data());
    const Vec3 pos_button = obj_init_pos_ + Vec3{0.0, -0.22, 0.3};
    target_pos_ = pos_button + Vec3{0.0, kMaxDist, 0.0};
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(button_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    out[0] = 1.0, out[1] = 0.0, out[2] = 0.0, out[3] = 0.0;
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(obj - init_tcp_);
    const double obj_to_target = std::abs(target_pos_[1] - obj[1]);
    const double tcp_closed = 0.0 > obs[3] ? 0.0 : obs[3];
    const double near_button = tolerance(tcp_to_obj, 0, 0.05, tcp_to_obj_init);
    const double pressed = tolerance(obj_to_target, 0, 0.005, kMaxDist);
    double reward = 2 * hamacher_product(tcp_closed, near_button);
    if (tcp_to_obj <= 0.05) reward += 8 * pressed;
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.02;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near_button;
    e.in_place_reward = pressed;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int machine_ = -1, button_ = -1;
};

class CoffeeMug : public SawyerEnv {
 public:
  CoffeeMug(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool pull) : SawyerEnv(s, std::move(m)), pull_(pull) {
    hand_init_pos_ = {0.0, 0.4, 0.2};
    obj_ = body("obj");
    mug_ = geom("mug");
    machine_ = body("coffee_machine");
    goal_site_ = site("mug_goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    const Vec3 mug_init{v[0], v[1], v[2]}, mug_goal{v[3], v[4], v[5]};
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    std::copy(mug_init.begin(), mug_init.end(), qpos.begin());
    std::fill(qvel.begin() + 9, qvel.begin() + 15, 0.0);
    set_state(qpos.data(), qvel.data());
    obj_init_pos_ = mug_init;
    set_model_body_pos(machine_, (pull_ ? mug_init : mug_goal) + Vec3{0.0, 0.22, 0.0});
    target_pos_ = mug_goal;
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(obj_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(mug_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 2.0, a[1] * 2.0, a[2] * 1.0}; };
    const double target_to_obj = norm(scaled(obj - target_pos_));
    const double target_to_obj_init = norm(scaled(obj_init_pos_ - target_pos_));
    const double in_place = tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const Num object_grasped = gripper_caging_reward(action, obj, 0.02, 0.05, 0.04, 0.05, 0.7, false, true);
    Num reward = hamacher_product(object_grasped, py(in_place));
    if (tcp_to_obj < 0.04 && tcp_opened > 0) reward = reward + py(1.0 + 5.0 * in_place);
    if (target_to_obj < 0.05) reward = py(10.0);
    const double obj_to_target = norm(obj - target_pos_);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = touching_object(mug_) && tcp_opened > 0;
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  bool pull_;
  int obj_ = -1, mug_ = -1, machine_ = -1, goal_site_ = -1;
};

template <bool kPull>
class CoffeeMugTask final : public CoffeeMug {
 public:
  CoffeeMugTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : CoffeeMug(s, std::move(m), kPull) {}
};

TaskInfo info(const char* name, std::vector<double> low, std::vector<double> high, Vec3 goal_low, Vec3 goal_high) {
  TaskInfo t;
  t.name = name;
  t.xml = "sawyer_xyz/sawyer_coffee.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = std::move(low);
  t.rand_high = std::move(high);
  t.goal_low = goal_low;
  t.goal_high = goal_high;
  return t;
}

}  // namespace

TaskEntry coffee_button_task() {
  const double max_dist = 0.03;  // goal_low = obj_low + [-0.001, -0.22 + max_dist, 0.299], goal_high likewise
  const Vec3 goal_low{-0.1 + -0.001, 0.8 + (-0.22 + max_dist), -0.001 + 0.299};
  const Vec3 goal_high{0.1 + +0.001, 0.9 + (-0.22 + max_dist), +0.001 + 0.301};
  TaskInfo t = info("coffee-button-v3", {-0.1, 0.8, -0.001}, {0.1, 0.9, +0.001}, goal_low, goal_high);
  t.hand_high = {0.5, 1.0, 0.5};
  return {t, &draw_once, &make_env<CoffeeButton>};
}
TaskEntry coffee_pull_task() {
  return {info("coffee-pull-v3", {-0.05, 0.7, -0.001, -0.1, 0.55, -0.001}, {0.05, 0.75, +0.001, 0.1, 0.65, +0.001},
               {-0.1, 0.55, -0.001}, {0.1, 0.65, +0.001}),
          &draw_apart<150>, &make_env<CoffeeMugTask<true>>};
}
TaskEntry coffee_push_task() {
  return {info("coffee-push-v3", {-0.1, 0.55, -0.001, -0.05, 0.7, -0.001}, {0.1, 0.65, +0.001, 0.05, 0.75, +0.001},
               {-0.05, 0.7, -0.001}, {0.05, 0.75, +0.001}),
          &draw_apart<150>, &make_env<CoffeeMugTask<false>>};
}

}  // namespace envhive::metaworld
