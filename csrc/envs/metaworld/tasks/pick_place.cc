// pick-place-v3 (SawyerPickPlaceEnvV3): pick a puck up and place it at a goal in the air; and
// pick-place-wall-v3, over a wall.
#include "../task_table.h"

namespace envhive::metaworld {
namespace {

class PickPlace final : public SawyerEnv {
 public:
  PickPlace(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    obj_ = body("obj");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], v[2]};
    init_tcp_ = tcp_center();
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(obj_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(obj_geom_, out);
    return 4;
  }
  // SawyerPickPlaceEnvV3._gripper_caging_reward (its own version). init_left_pad / init_right_pad
  // are views of data.body(...).xpos in the reference, so they are the pads' current positions.
  Num caging_reward(const float* action, const Vec3& obj) const {
    const double pad_success_margin = 0.05, x_z_success_margin = 0.005, obj_radius = 0.015;
    const Vec3 tcp = tcp_center();
    const Vec3 left_pad = body_xpos(left_pad_), right_pad = body_xpos(right_pad_);
    const double delta_left = left_pad[1] - obj[1];
    const double delta_right = obj[1] - right_pad[1];
    const double right_margin = std::abs(std::abs(obj[1] - right_pad[1]) - pad_success_margin);
    const double left_margin = std::abs(std::abs(obj[1] - left_pad[1]) - pad_success_margin);
    const double right_caging = tolerance(delta_right, obj_radius, pad_success_margin, right_margin);
    const double left_caging = tolerance(delta_left, obj_radius, pad_success_margin, left_margin);
    const double y_caging = hamacher_product(left_caging, right_caging);
    const Vec3 tcp_xz = tcp + Vec3{0.0, -tcp[1], 0.0};
    const Vec3 obj_xz = obj + Vec3{0.0, -obj[1], 0.0};
    const double tcp_obj_norm_x_z = norm(tcp_xz - obj_xz);
    const Vec3 init_obj_xz = obj_init_pos_ + Vec3{0.0, -obj_init_pos_[1], 0.0};
    const Vec3 init_tcp_xz = init_tcp_ + Vec3{0.0, -init_tcp_[1], 0.0};
    const double margin = norm(init_obj_xz - init_tcp_xz) - x_z_success_margin;
    const double x_z_caging = tolerance(tcp_obj_norm_x_z, 0, x_z_success_margin, margin);
    const float a = action[3];  // min(max(0, action[-1]), 1)
    Num gripper_closed = a > 0.0f ? f32(a) : py(0);
    if (py(1) < gripper_closed) gripper_closed = py(1);
    const Num caging = hamacher_product(py(y_caging), py(x_z_caging));
    const Num gripping = caging > py(0.97) ? gripper_closed : py(0.0);
    const Num caging_and_gripping = hamacher_product(caging, gripping);
    return (caging_and_gripping + caging) / py(2);
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const double obj_to_target = norm(obj - target_pos_);
    const double tcp_to_obj = norm(obj - tcp_center());
    const double in_place_margin = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(obj_to_target, 0, 0.05, in_place_margin);
    const Num object_grasped = caging_reward(action, obj);
    Num reward = hamacher_product(object_grasped, py(in_place));
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2])
      reward = reward + py(1.0 + 5.0 * in_place);
    if (obj_to_target < 0.05) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int obj_ = -1, goal_site_ = -1;
};

class PickPlaceWall final : public SawyerEnv {
 public:
  PickPlaceWall(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = geom_xpos(obj_geom_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(obj_geom_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 midpoint{target_pos_[0], 0.77, 0.25};
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 1.0, a[1] * 1.0, a[2] * 3.0}; };
    const double tcp_to_obj = norm(obj - tcp_center());
    const double obj_to_midpoint = norm(scaled(obj - midpoint));
    const double obj_to_midpoint_init = norm(scaled(obj_init_pos_ - midpoint));
    const double obj_to_target = norm(obj - target_pos_);
    const double obj_to_target_init = norm(obj_init_pos_ - target_pos_);
    const double in_place1 = tolerance(obj_to_midpoint, 0, 0.05, obj_to_midpoint_init);
    const double in_place2 = tolerance(obj_to_target, 0, 0.05, obj_to_target_init);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.05, 0.01, 0.005);
    const Num grasped_in_place = hamacher_product(object_grasped, py(in_place1));
    Num reward = grasped_in_place;
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.015 > obj_init_pos_[2]) {
      reward = (grasped_in_place + py(1.0)) + py(4.0 * in_place1);
      if (obj[1] > 0.75) reward = ((grasped_in_place + py(1.0)) + py(4.0)) + py(3.0 * in_place2);
    }
    if (obj_to_target < 0.05) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place2;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int goal_site_ = -1;
};

}  // namespace

TaskEntry pick_place_wall_task() {
  TaskInfo t;
  t.name = "pick-place-wall-v3";
  t.xml = "sawyer_xyz/sawyer_pick_place_wall_v3.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.05, 0.6, 0.015, -0.05, 0.85, 0.05};
  t.rand_high = {0.05, 0.65, 0.015, 0.05, 0.9, 0.3};
  t.goal_low = {-0.05, 0.85, 0.05};
  t.goal_high = {0.05, 0.9, 0.3};
  return {t, &draw_apart<150>, &make_env<PickPlaceWall>};
}

TaskEntry pick_place_task() {
  TaskInfo t;
  t.name = "pick-place-v3";
  t.xml = "sawyer_xyz/sawyer_pick_place_v3.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.02, -0.1, 0.8, 0.05};
  t.rand_high = {0.1, 0.7, 0.02, 0.1, 0.9, 0.3};
  t.goal_low = {-0.1, 0.8, 0.05};
  t.goal_high = {0.1, 0.9, 0.3};
  return {t, &draw_apart<150>, &make_env<PickPlace>};
}

}  // namespace envhive::metaworld
