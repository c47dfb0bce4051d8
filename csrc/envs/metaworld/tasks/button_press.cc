// button-press-v3, button-press-wall-v3, button-press-topdown-v3, button-press-topdown-wall-v3: press
// a button (from the front or from above; behind a wall).
#include "object_task.h"

namespace envhive::metaworld {
namespace {

enum class Variant { kFront, kFrontWall, kTopdown, kTopdownWall };

class ButtonPress : public SawyerEnv {
 public:
  ButtonPress(const EnvSettings& s, std::shared_ptr<const mjModel> m, Variant v) : SawyerEnv(s, std::move(m)), v_(v) {
    hand_init_pos_ = f32_vec(0, 0.4, 0.2);
    button_ = body("button");
    box_ = body("box");
    hole_ = site("hole");
    button_start_ = site("buttonStart");
  }

 protected:
  bool topdown() const { return v_ == Variant::kTopdown || v_ == Variant::kTopdownWall; }
  void reset_model() override {
    reset_hand();
    const RandVec goal = state_rand_vec();
    obj_init_pos_ = {goal[0], goal[1], goal[2]};
    set_model_body_pos(box_, obj_init_pos_);
    if (topdown()) {
      mj_forward(m_, d_);
    } else {  // _set_obj_xyz(np.array(0)): the button joint
      std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
      qpos[9] = 0;
      qvel[9] = 0;
      set_state(qpos.data(), qvel.data());
    }
    target_pos_ = site_xpos(hole_);
    const int axis = topdown() ? 2 : 1;
    obj_to_target_init_ = std::abs(target_pos_[axis] - site_xpos(button_start_)[axis]);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(button_) + (topdown() ? Vec3{0.0, 0.0, 0.193} : Vec3{0.0, -0.193, 0.0});
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(button_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(obj - init_tcp_);
    const int axis = topdown() ? 2 : 1;
    const double obj_to_target = std::abs(target_pos_[axis] - obj[axis]);
    const double near_bound = v_ == Variant::kFront ? 0.05 : 0.01;
    const double near_button = tolerance(tcp_to_obj, 0, near_bound, tcp_to_obj_init);
    const double button_pressed = tolerance(obj_to_target, 0, 0.005, obj_to_target_init_);
    const double tcp_closed_max = 0.0 > obs[3] ? 0.0 : obs[3];  // max(obs[3], 0.0)
    double reward = 0.0, success_radius = 0.024;
    switch (v_) {
      case Variant::kTopdown:
        reward = 5 * hamacher_product(1 - obs[3], near_button);
        if (tcp_to_obj <= 0.03) reward += 5 * button_pressed;
        break;
      case Variant::kTopdownWall:
        reward = 5 * hamacher_product(tcp_closed_max, near_button);
        if (tcp_to_obj <= 0.03) reward += 5 * button_pressed;
        break;
      case Variant::kFront:
        success_radius = 0.02;
        reward = 2 * hamacher_product(tcp_closed_max, near_button);
        if (tcp_to_obj <= 0.05) reward += 8 * button_pressed;
        break;
      case Variant::kFrontWall:
        success_radius = 0.03;
        if (tcp_to_obj > 0.07) {
          reward = 2 * hamacher_product((1 - obs[3]) / 2.0, near_button);
        } else {
          reward = 2 + 2 * (1 + obs[3]);
          reward += 4 * py_pow(button_pressed, 2.0);
        }
        break;
    }
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= success_radius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near_button;
    e.in_place_reward = button_pressed;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  Variant v_;
  int button_ = -1, box_ = -1, hole_ = -1, button_start_ = -1;
  double obj_to_target_init_ = 0;
};

template <Variant V>
class Button final : public ButtonPress {
 public:
  Button(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ButtonPress(s, std::move(m), V) {}
};

TaskEntry entry(const char* name, const char* xml, std::vector<double> low, std::vector<double> high, MakeEnv make) {
  TaskInfo t;
  t.name = name;
  t.xml = xml;
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = std::move(low);
  t.rand_high = std::move(high);
  t.goal_low = t.hand_low;  // goal_space = hand_low .. hand_high
  t.goal_high = t.hand_high;
  return {t, &draw_once, make};
}

}  // namespace

TaskEntry button_press_topdown_task() {
  return entry("button-press-topdown-v3", "sawyer_xyz/sawyer_button_press_topdown.xml", {-0.1, 0.8, 0.115},
               {0.1, 0.9, 0.115}, &make_env<Button<Variant::kTopdown>>);
}
TaskEntry button_press_topdown_wall_task() {
  return entry("button-press-topdown-wall-v3", "sawyer_xyz/sawyer_button_press_topdown_wall.xml", {-0.1, 0.8, 0.115},
               {0.1, 0.9, 0.115}, &make_env<Button<Variant::kTopdownWall>>);
}
TaskEntry button_press_task() {
  return entry("button-press-v3", "sawyer_xyz/sawyer_button_press.xml", {-0.1, 0.85, 0.115}, {0.1, 0.9, 0.115},
               &make_env<Button<Variant::kFront>>);
}
TaskEntry button_press_wall_task() {
  return entry("button-press-wall-v3", "sawyer_xyz/sawyer_button_press_wall.xml", {-0.05, 0.85, 0.1149},
               {0.05, 0.9, 0.1151}, &make_env<Button<Variant::kFrontWall>>);
}

}  // namespace envhive::metaworld
