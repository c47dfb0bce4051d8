// bin-picking-v3: move a cube from one bin into the other.
#include <algorithm>

#include "object_task.h"

namespace envhive::metaworld {
namespace {

class BinPicking final : public SawyerEnv {
 public:
  BinPicking(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0, 0.6, 0.2};
    obj_ = body("obj");
    bin_goal_ = body("bin_goal");
  }

 protected:
  static constexpr double kTargetRadius = 0.05;
  Vec3 pos_goal() const override { return body_xpos(bin_goal_); }  // get_body_com("bin_goal"), a live view
  void reset_model() override {
    reset_hand();
    const double obj_height = body_xpos(obj_)[2];
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], obj_height};
    set_obj_xyz_default(obj_init_pos_);
    target_to_obj_init_set_ = false;  // _target_to_obj_init = None: the episode's first step sets it
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(obj_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(obj_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 hand = vec3(obs), obj = vec3(obs + 4);
    const Vec3 target = body_xpos(bin_goal_);
    const double target_to_obj = norm(obj - target);
    if (!target_to_obj_init_set_) {
      target_to_obj_init_ = target_to_obj;
      target_to_obj_init_set_ = true;
    }
    const double in_place = tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init_);
    const double threshold = 0.03;
    const double radii[2] = {norm(hand - obj_init_pos_, 2), norm(hand - target, 2)};
    double floor = 0;
    for (int i = 0; i < 2; ++i) {  // min([...]): the first of equal values
      const double f = radii[i] > threshold ? 0.02 * np_log(radii[i] - threshold) + 0.2 : 0.0;
      if (i == 0 || f < floor) floor = f;
    }
    const double above_floor =
        hand[2] >= floor ? 1.0 : tolerance(std::max(floor - hand[2], 0.0), 0.0, 0.01, 0.05);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.015, 0.05, 0.01, 0.01, 0.7, true);
    Num reward = hamacher_product(object_grasped, py(in_place));
    const bool near_object = norm(obj - hand) < 0.04;
    const bool pinched_without_obj = obs[3] < 0.43;
    const bool lifted = obj[2] - 0.02 > obj_init_pos_[2];
    const bool grasp_success = near_object && lifted && !pinched_without_obj;
    if (grasp_success) reward = reward + py(1.0 + 5.0 * hamacher_product(above_floor, in_place));
    if (target_to_obj < kTargetRadius) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= 0.05;
    e.near_object = near_object;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int obj_ = -1, bin_goal_ = -1;
  bool target_to_obj_init_set_ = false;
  double target_to_obj_init_ = 0;
};

}  // namespace

TaskEntry bin_picking_task() {
  TaskInfo t;
  t.name = "bin-picking-v3";
  t.xml = "sawyer_xyz/sawyer_bin_picking.xml";
  t.hand_low = {-0.5, 0.40, 0.07};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.21, 0.65, 0.02, 0.1199, 0.699, -0.001};
  t.rand_high = {-0.03, 0.75, 0.02, 0.1201, 0.701, +0.001};
  t.goal_low = {0.1199, 0.699, -0.001};
  t.goal_high = {0.1201, 0.701, +0.001};
  return {t, &draw_once, &make_env<BinPicking>};
}

}  // namespace envhive::metaworld
