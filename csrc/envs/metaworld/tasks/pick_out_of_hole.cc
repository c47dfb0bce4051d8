// pick-out-of-hole-v3: pick a peg out of a hole and lift it to a goal.
#include <algorithm>

#include "object_task.h"

namespace envhive::metaworld {
namespace {

class PickOutOfHole final : public ObjectTask {
 public:
  PickOutOfHole(const EnvSettings& s, std::shared_ptr<const mjModel> m) : ObjectTask(s, std::move(m)) {
    hand_init_pos_ = {0.0, 0.6, 0.2};
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<150>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_obj_xyz_default(obj_init_pos_);
    target_pos_ = {v[3], v[4], v[5]};
    set_model_site_pos(goal_site_, target_pos_);
  }
  int quat_objects(double* out) const override {
    body_quat(obj_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const Vec3 gripper = tcp_center();
    const double obj_to_target = norm(obj - target_pos_);
    const double tcp_to_obj = norm(obj - gripper);
    const double in_place_margin = norm(obj_init_pos_ - target_pos_);
    const double threshold = 0.03;
    const double radius = norm(gripper - obj_init_pos_, 2);
    const double floor = radius <= threshold ? 0.0 : 0.015 * np_log(radius - threshold) + 0.15;
    const double above_floor =
        gripper[2] >= floor ? 1.0 : tolerance(std::max(floor - gripper[2], 0.0), 0.0, 0.01, 0.02);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.02, 0.01, 0.03, 0.1, true);
    const double in_place = tolerance(obj_to_target, 0, 0.02, in_place_margin);
    Num reward = hamacher_product(object_grasped, py(in_place));
    const bool near_object = tcp_to_obj < 0.04;
    const bool pinched_without_obj = obs[3] < 0.33;
    const bool lifted = obj[2] - 0.02 > obj_init_pos_[2];
    const bool grasp_success = near_object && lifted && !pinched_without_obj;
    if (grasp_success) reward = reward + py(1.0 + 5.0 * hamacher_product(in_place, above_floor));
    if (obj_to_target < 0.05) reward = py(10.0);  // self.TARGET_RADIUS: SawyerXYZEnv's
    return object_eval(reward, tcp_to_obj, obs[3], obj_to_target, object_grasped.as_f64(), in_place, 0.07,
                       grasp_success);
  }
};

}  // namespace

TaskEntry pick_out_of_hole_task() {
  TaskInfo t;
  t.name = "pick-out-of-hole-v3";
  t.xml = "sawyer_xyz/sawyer_pick_out_of_hole.xml";
  t.hand_low = {-0.5, 0.40, -0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0, 0.75, 0.02, -0.1, 0.5, 0.15};
  t.rand_high = {0, 0.75, 0.02, 0.1, 0.6, 0.3};
  t.goal_low = {-0.1, 0.5, 0.15};
  t.goal_high = {0.1, 0.6, 0.3};
  return {t, &draw_apart<150>, &make_env<PickOutOfHole>};
}

}  // namespace envhive::metaworld
