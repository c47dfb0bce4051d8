// handle-press-v3, handle-press-side-v3, handle-pull-v3, handle-pull-side-v3: press a handle down
// (from the front or the side); pull it up.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Handle : public SawyerEnv {
 public:
  Handle(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool press, bool side)
      : SawyerEnv(s, std::move(m)), press_(press), side_(side) {
    box_ = body("box");
    handle_ = site(press ? "handleStart" : (side ? "handleCenter" : "handleRight"));
    goal_ = site(press ? "goalPress" : "goalPull");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_model_body_pos(box_, obj_init_pos_);
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    qpos[9] = press_ ? -0.001 : -0.1;  // _set_obj_xyz
    qvel[9] = 0;
    set_state(qpos.data(), qvel.data());
    target_pos_ = site_xpos(goal_);
    if (press_) handle_init_pos_ = site_xpos(handle_);
    if (!press_ && side_) obj_init_pos_ = site_xpos(handle_);
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
  Eval evaluate_state(const double* obs, const float* action) override { return press_ ? press(obs) : pull(obs, action); }

  Eval press(const double* /*obs*/) {
    const double radius = 0.02;  // TARGET_RADIUS
    const Vec3 obj = site_xpos(handle_);
    const double target_to_obj = norm1(obj[2] - target_pos_[2]);
    const double target_to_obj_init = norm1(handle_init_pos_[2] - target_pos_[2]);
    const double in_place = tolerance(target_to_obj, 0, radius, std::abs(target_to_obj_init - radius));
    const double handle_radius = 0.02;
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(handle_init_pos_ - init_tcp_);
    const double reach = tolerance(tcp_to_obj, 0, handle_radius, std::abs(tcp_to_obj_init - handle_radius));
    double reward = hamacher_product(reach, in_place);
    if (target_to_obj <= radius) reward = 1.0;
    reward *= 10;
    Eval e;
    e.reward = py(reward);
    e.success = target_to_obj <= radius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward;
    return e;
  }

  Eval pull(const double* obs, const float* action) {
    const double radius = 0.05;  // SawyerXYZEnv.TARGET_RADIUS
    const Vec3 obj = vec3(obs + 4);
    double target_to_obj, target_to_obj_init;
    Num object_grasped = py(0);
    if (side_) {
      target_to_obj = norm((obj - target_pos_) * 1.0);
      target_to_obj_init = norm((obj_init_pos_ - target_pos_) * 1.0);
      object_grasped = gripper_caging_reward(action, obj, 0.032, 0.06, 0.01, 0.01, 1.0, true);
    } else {
      target_to_obj = std::abs(target_pos_[2] - obj[2]);
      target_to_obj_init = std::abs(target_pos_[2] - obj_init_pos_[2]);
      object_grasped = gripper_caging_reward(action, obj, 0.022, 0.05, 0.01, 0.01, 1.0, true);
    }
    const double in_place = tolerance(target_to_obj, 0, radius, target_to_obj_init);
    Num reward = hamacher_product(object_grasped, py(in_place));
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const double lifted = side_ ? obj[2] : obj[1];  // handle-pull compares obj[1] (sic) with obj_init_pos[2]
    if (tcp_to_obj < 0.035 && tcp_opened > 0 && lifted - 0.01 > obj_init_pos_[2]) reward = reward + py(1.0 + 5.0 * in_place);
    if (target_to_obj < radius) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= (side_ ? 0.08 : radius);
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  bool press_, side_;
  int box_ = -1, handle_ = -1, goal_ = -1;
  Vec3 handle_init_pos_{};
};

template <bool kPress, bool kSide>
class HandleTask final : public Handle {
 public:
  HandleTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Handle(s, std::move(m), kPress, kSide) {}
};

TaskInfo info(const char* name, bool side, std::vector<double> low, std::vector<double> high, Vec3 goal_low,
              Vec3 goal_high) {
  TaskInfo t;
  t.name = name;
  t.xml = side ? "sawyer_xyz/sawyer_handle_press_sideways.xml" : "sawyer_xyz/sawyer_handle_press.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1.0, 0.5};
  t.rand_low = std::move(low);
  t.rand_high = std::move(high);
  t.goal_low = goal_low;
  t.goal_high = goal_high;
  return t;
}

}  // namespace

TaskEntry handle_press_task() {
  return {info("handle-press-v3", false, {-0.1, 0.8, -0.001}, {0.1, 0.9, 0.001}, {-0.1, 0.55, 0.04}, {0.1, 0.7, 0.08}),
          &draw_once, &make_env<HandleTask<true, false>>};
}
TaskEntry handle_press_side_task() {
  return {info("handle-press-side-v3", true, {-0.35, 0.65, -0.001}, {-0.25, 0.75, 0.001}, {-0.5, 0.40, 0.05},
               {0.5, 1.0, 0.5}),
          &draw_once, &make_env<HandleTask<true, true>>};
}
TaskEntry handle_pull_task() {
  return {info("handle-pull-v3", false, {-0.1, 0.8, -0.001}, {0.1, 0.9, 0.001}, {-0.1, 0.55, 0.04}, {0.1, 0.7, 0.18}),
          &draw_once, &make_env<HandleTask<false, false>>};
}
TaskEntry handle_pull_side_task() {
  return {info("handle-pull-side-v3", true, {-0.35, 0.65, 0.0}, {-0.25, 0.75, 0.0}, {-0.5, 0.40, 0.05},
               {0.5, 1.0, 0.5}),
          &draw_once, &make_env<HandleTask<false, true>>};
}

}  // namespace envhive::metaworld
