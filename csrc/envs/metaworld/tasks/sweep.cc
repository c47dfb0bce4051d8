// sweep-v3, sweep-into-v3: sweep a puck off the table's edge; into a hole.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

// sweep-into's draw loop: redraw while the puck starts within 0.15 of the (fixed) goal (0, 0.84).
RandVec draw_away_from_hole(const DrawFn& draw) {
  RandVec v = draw();
  while (true) {
    const double d[2] = {v[0] - 0.0, v[1] - 0.84};
    if (!(norm(d, 2) < 0.15)) break;
    v = draw();
  }
  return v;
}

class Sweep : public SawyerEnv {
 public:
  Sweep(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool into) : SawyerEnv(s, std::move(m)), into_(into) {
    hand_init_pos_ = {0.0, 0.6, 0.2};
    obj_ = body("obj");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    if (into_) {
      target_pos_ = {0.0, 0.84, 0.02};
      const double z = body_xpos(obj_)[2];
      const RandVec v = draw_away_from_hole([this] { return state_rand_vec(); });
      obj_init_pos_ = {v[0], v[1], z};
    } else {
      target_pos_ = {0.5, 0.65, 0.01};
      const RandVec v = state_rand_vec();
      obj_init_pos_ = {v[0], v[1], 0.02};
      target_pos_[1] = v[1];
    }
    set_obj_xyz_default(obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(obj_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    if (into_) geom_quat(obj_geom_, out);
    else body_quat(obj_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 target = into_ ? Vec3{target_pos_[0], target_pos_[1], obj[2]} : target_pos_;
    const double obj_to_target = norm(obj - target);
    const double tcp_to_obj = norm(obj - tcp_center());
    const double in_place_margin = norm(obj_init_pos_ - target);
    const double in_place = tolerance(obj_to_target, 0, 0.05, in_place_margin);
    const double object_grasped = pad_caging_reward(obj, 0.02, into_ ? 0.005 : 0.01, into_ ? 0.01 : 0.005);
    const double grasped_in_place = hamacher_product(object_grasped, in_place);
    double reward = 2 * object_grasped + 6 * grasped_in_place;
    if (obj_to_target < 0.05) reward = 10.0;
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.05;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = touching_object(obj_geom_) && tcp_opened > 0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  bool into_;
  int obj_ = -1, goal_site_ = -1;
};

template <bool kInto>
class SweepTask final : public Sweep {
 public:
  SweepTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Sweep(s, std::move(m), kInto) {}
};

}  // namespace

TaskEntry sweep_into_task() {
  TaskInfo t;
  t.name = "sweep-into-v3";
  t.xml = "sawyer_xyz/sawyer_table_with_hole.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.02, -0.001, 0.8399, 0.0199};
  t.rand_high = {0.1, 0.7, 0.02, +0.001, 0.8401, 0.0201};
  t.goal_low = {-0.001, 0.8399, 0.0199};
  t.goal_high = {+0.001, 0.8401, 0.0201};
  return {t, &draw_away_from_hole, &make_env<SweepTask<true>>};
}
TaskEntry sweep_task() {
  TaskInfo t;
  t.name = "sweep-v3";
  t.xml = "sawyer_xyz/sawyer_sweep_v3.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1.0, 0.5};
  t.rand_low = {-0.1, 0.6, 0.02};
  t.rand_high = {0.1, 0.7, 0.02};
  t.goal_low = {0.49, 0.6, 0.0};
  t.goal_high = {0.51, 0.7, 0.02};
  return {t, &draw_once, &make_env<SweepTask<false>>};
}

}  // namespace envhive::metaworld
