// window-open-v3, window-close-v3: slide a window open (closed) by its handle.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Window : public SawyerEnv {
 public:
  Window(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool open) : SawyerEnv(s, std::move(m)), open_(open) {
    hand_init_pos_ = f32_vec(0, 0.4, 0.2);
    window_ = body("window");
    goal_site_ = site("goal");
    handle_ = site(open ? "handleOpenStart" : "handleCloseStart");
    slide_qpos_ = m_->jnt_qposadr[joint("window_slide")];
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = open_ ? obj_init_pos_ + Vec3{0.2, 0.0, 0.0} : obj_init_pos_;
    set_model_body_pos(window_, obj_init_pos_);
    // No mj_forward: the handle site is where the last step of the hand reset left it.
    handle_pos_init_ = open_ ? site_xpos(handle_) : site_xpos(handle_) + Vec3{0.2, 0.0, 0.0};
    d_->qpos[slide_qpos_] = open_ ? 0.0 : 0.2;
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(handle_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    std::fill(out, out + 4, 0.0);
    return 4;
  }
  Eval evaluate_state(const double* /*obs*/, const float* /*action*/) override {
    const Vec3 obj = site_xpos(handle_);
    const double target_to_obj = norm1(obj[0] - target_pos_[0]);
    const double init_x = open_ ? obj_init_pos_[0] : handle_pos_init_[0];
    const double target_to_obj_init = norm1(init_x - target_pos_[0]);
    const double in_place = tolerance(target_to_obj, 0, 0.05, std::abs(target_to_obj_init - 0.05));
    const double handle_radius = 0.02;
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(handle_pos_init_ - init_tcp_);
    const double reach = tolerance(tcp_to_obj, 0, handle_radius, std::abs(tcp_to_obj_init - handle_radius),
                                   open_ ? Sigmoid::kLongTail : Sigmoid::kGaussian);
    const double reward = 10 * hamacher_product(reach, in_place);
    Eval e;
    e.reward = py(reward);
    e.success = target_to_obj <= 0.05;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  bool open_;
  int window_ = -1, goal_site_ = -1, handle_ = -1, slide_qpos_ = 0;
  Vec3 handle_pos_init_{};
};

template <bool kOpen>
class WindowTask final : public Window {
 public:
  WindowTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Window(s, std::move(m), kOpen) {}
};

TaskInfo info(const char* name, std::vector<double> low, std::vector<double> high) {
  TaskInfo t;
  t.name = name;
  t.xml = "sawyer_xyz/sawyer_window_horizontal.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = std::move(low);
  t.rand_high = std::move(high);
  t.goal_low = t.hand_low;
  t.goal_high = t.hand_high;
  return t;
}

}  // namespace

TaskEntry window_open_task() {
  return {info("window-open-v3", {-0.1, 0.7, 0.16}, {0.1, 0.9, 0.16}), &draw_once, &make_env<WindowTask<true>>};
}
TaskEntry window_close_task() {
  return {info("window-close-v3", {0.0, 0.75, 0.2}, {0.0, 0.9, 0.2}), &draw_once, &make_env<WindowTask<false>>};
}

}  // namespace envhive::metaworld
