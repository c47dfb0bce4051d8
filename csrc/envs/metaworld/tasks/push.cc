// push-v3, push-wall-v3, push-back-v3: push a puck to a goal on the table (around a wall; back).
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Push final : public ObjectTask {
 public:
  using ObjectTask::ObjectTask;

 protected:
  void reset_model() override {
    reset_hand();
    const double z = obj_body_z();  // fix_extreme_obj_pos: get_body_com("obj")[-1]
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], z};
    obj_init_pos_ = {v[0], v[1], z};
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, true);
    Num reward = py(2) * object_grasped;
    if (tcp_to_obj < 0.02 && tcp_opened > 0) reward = reward + ((py(1.0) + reward) + py(5.0 * in_place));
    if (target_to_obj < 0.05) reward = py(10.0);
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    return object_eval(reward, tcp_to_obj, tcp_opened, target_to_obj, object_grasped.as_f64(), in_place, 0.05, grasp);
  }
};

class PushWall final : public ObjectTask {
 public:
  PushWall(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ObjectTask(s, std::move(m), Pos::kGeom) {}

 protected:
  void reset_model() override {
    reset_hand();
    const double z = obj_geom_z();  // adjust_initObjPos
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], z};
    obj_init_pos_ = {v[0], v[1], z};
    set_model_site_pos(goal_site_, target_pos_);
    set_obj_xyz_default(obj_init_pos_);
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 midpoint{-0.05, 0.77, obj[2]};
    const Vec3 scaling{3.0, 1.0, 1.0};
    const auto scaled = [&](const Vec3& a) { return Vec3{a[0] * scaling[0], a[1] * scaling[1], a[2] * scaling[2]}; };
    const double tcp_to_obj = norm(obj - tcp_center());
    const double obj_to_midpoint = norm(scaled(obj - midpoint));
    const double obj_to_midpoint_init = norm(scaled(obj_init_pos_ - midpoint));
    const double obj_to_target = norm(obj - target_pos_);
    const double obj_to_target_init = norm(obj_init_pos_ - target_pos_);
    const double in_place1 = tolerance(obj_to_midpoint, 0, 0.05, obj_to_midpoint_init);
    const double in_place2 = tolerance(obj_to_target, 0, 0.05, obj_to_target_init);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, true);
    Num reward = py(2) * object_grasped;
    if (tcp_to_obj < 0.02 && tcp_opened > 0) {
      reward = (py(2.0) * object_grasped + py(1.0)) + py(4.0 * in_place1);
      if (obj[1] > 0.75) reward = ((py(2) * object_grasped + py(1.0)) + py(4.0)) + py(3.0 * in_place2);
    }
    if (obj_to_target < 0.05) reward = py(10.0);
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    return object_eval(reward, tcp_to_obj, tcp_opened, obj_to_target, object_grasped.as_f64(), in_place2, 0.07, grasp);
  }
};

class PushBack final : public ObjectTask {
 public:
  PushBack(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ObjectTask(s, std::move(m), Pos::kGeom) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
  }

 protected:
  void reset_model() override {
    reset_hand();
    const double z = obj_geom_z();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    target_pos_ = {v[3], v[4], z};
    obj_init_pos_ = {v[0], v[1], z};
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const double object_grasped = pad_caging_reward(obj, 0.007, 0.003, 0.01);
    double reward = hamacher_product(object_grasped, in_place);
    if (tcp_to_obj < 0.01 && 0 < tcp_opened && tcp_opened < 0.55 && target_to_obj_init - target_to_obj > 0.01)
      reward += 1.0 + 5.0 * in_place;
    if (target_to_obj < 0.05) reward = 10.0;
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    return object_eval(py(reward), tcp_to_obj, tcp_opened, target_to_obj, object_grasped, in_place, 0.07, grasp);
  }
};

TaskInfo info(const char* name, const char* xml, std::vector<double> low, std::vector<double> high, Vec3 goal_low,
              Vec3 goal_high) {
  TaskInfo t;
  t.name = name;
  t.xml = xml;
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = std::move(low);
  t.rand_high = std::move(high);
  t.goal_low = goal_low;
  t.goal_high = goal_high;
  return t;
}

}  // namespace

TaskEntry push_task() {
  return {info("push-v3", "sawyer_xyz/sawyer_push_v3.xml", {-0.1, 0.6, 0.02, -0.1, 0.8, 0.01},
               {0.1, 0.7, 0.02, 0.1, 0.9, 0.02}, {-0.1, 0.8, 0.01}, {0.1, 0.9, 0.02}),
          &draw_apart<150>, &make_env<Push>};
}
TaskEntry push_wall_task() {
  return {info("push-wall-v3", "sawyer_xyz/sawyer_push_wall_v3.xml", {-0.05, 0.6, 0.015, -0.05, 0.85, 0.01},
               {0.05, 0.65, 0.015, 0.05, 0.9, 0.02}, {-0.05, 0.85, 0.01}, {0.05, 0.9, 0.02}),
          &draw_apart<150>, &make_env<PushWall>};
}
TaskEntry push_back_task() {
  return {info("push-back-v3", "sawyer_xyz/sawyer_push_back_v3.xml", {-0.1, 0.8, 0.02, -0.1, 0.6, 0.0199},
               {0.1, 0.85, 0.02, 0.1, 0.7, 0.0201}, {-0.1, 0.6, 0.0199}, {0.1, 0.7, 0.0201}),
          &draw_apart<150>, &make_env<PushBack>};
}

}  // namespace envhive::metaworld
