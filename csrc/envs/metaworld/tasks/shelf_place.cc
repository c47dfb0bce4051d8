// shelf-place-v3: pick a block up and place it on a shelf.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class ShelfPlace final : public ObjectTask {
 public:
  ShelfPlace(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ObjectTask(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    shelf_ = body("shelf");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const double z = obj_body_z();  // adjust_initObjPos: get_body_com("obj")[-1]
    const RandVec v = draw_apart<100>([this] { return state_rand_vec(); });
    const Vec3 base_shelf{v[3] - 0, v[4] - 0, v[5] - 0.3};
    obj_init_pos_ = {v[0] - 0, v[1] - 0, z};
    set_model_body_pos(shelf_, base_shelf);
    mj_forward(m_, d_);
    target_pos_ = vec3(m_->site_pos + 3 * goal_site_) + vec3(m_->body_pos + 3 * shelf_);
    set_obj_xyz_default(obj_init_pos_);
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const double radius = 0.05;
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3& target = target_pos_;
    const double obj_to_target = norm(obj - target);
    const double tcp_to_obj = norm(obj - tcp_center());
    const double in_place_margin = norm(obj_init_pos_ - target);
    double in_place = tolerance(obj_to_target, 0, radius, in_place_margin);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.02, 0.05, 0.01, 0.01);
    Num reward = hamacher_product(object_grasped, py(in_place));
    const bool in_front = 0.0 < obj[2] && obj[2] < 0.24 && target[0] - 0.15 < obj[0] && obj[0] < target[0] + 0.15;
    if (in_front && target[1] - 3 * radius < obj[1] && obj[1] < target[1]) {
      const double z_scaling = (0.24 - obj[2]) / 0.24;
      const double y_scaling = (obj[1] - (target[1] - 3 * radius)) / (3 * radius);
      const double bound_loss = hamacher_product(y_scaling, z_scaling);
      in_place = npcompat::np_clip(in_place - bound_loss, 0.0, 1.0);
    }
    if (in_front && obj[1] > target[1]) in_place = 0.0;
    if (tcp_to_obj < 0.025 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2]) reward = reward + py(1.0 + 5.0 * in_place);
    if (obj_to_target < radius) reward = py(10.0);
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    return object_eval(reward, tcp_to_obj, tcp_opened, obj_to_target, object_grasped.as_f64(), in_place, 0.07, grasp);
  }

 private:
  int shelf_ = -1;
};

}  // namespace

TaskEntry shelf_place_task() {
  TaskInfo t;
  t.name = "shelf-place-v3";
  t.xml = "sawyer_xyz/sawyer_shelf_placing.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.5, 0.019, -0.1, 0.8, 0.299};
  t.rand_high = {0.1, 0.6, 0.021, 0.1, 0.9, 0.301};
  t.goal_low = {-0.1, 0.8, 0.299};
  t.goal_high = {0.1, 0.9, 0.301};
  return {t, &draw_apart<100>, &make_env<ShelfPlace>};
}

}  // namespace envhive::metaworld
