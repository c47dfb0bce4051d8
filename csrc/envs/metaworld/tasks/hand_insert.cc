// hand-insert-v3: push a block into a hole in the table.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class HandInsert final : public ObjectTask {
 public:
  HandInsert(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ObjectTask(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    obj_init_pos_ = {0, 0.6, 0.05};  // init_config: its z is every episode's
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], obj_init_pos_[2]};
    target_pos_ = {v[3], v[4], v[5]};
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int quat_objects(double* out) const override {
    body_quat(obj_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, true);
    Num reward = hamacher_product(object_grasped, py(in_place));
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    if (tcp_to_obj < 0.02 && tcp_opened > 0) reward = reward + py(1.0 + 7.0 * in_place);
    if (target_to_obj < 0.05) reward = py(10.0);
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    return object_eval(reward, tcp_to_obj, tcp_opened, target_to_obj, object_grasped.as_f64(), in_place, 0.05, grasp);
  }
};

}  // namespace

TaskEntry hand_insert_task() {
  TaskInfo t;
  t.name = "hand-insert-v3";
  t.xml = "sawyer_xyz/sawyer_table_with_hole.xml";
  t.hand_low = {-0.5, 0.40, -0.15};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.05, -0.04, 0.8, -0.0201};
  t.rand_high = {0.1, 0.7, 0.05, 0.04, 0.88, -0.0199};
  t.goal_low = {-0.04, 0.8, -0.0201};
  t.goal_high = {0.04, 0.88, -0.0199};
  return {t, &draw_apart<150>, &make_env<HandInsert>};
}

}  // namespace envhive::metaworld
