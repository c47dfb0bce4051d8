// reach-v3 (SawyerReachEnvV3) and reach-wall-v3: bring the gripper to a goal in the air (behind a wall).
#include "../task_table.h"

namespace envhive::metaworld {
namespace {

class Reach : public SawyerEnv {
 public:
  Reach(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool wall = false)
      : SawyerEnv(s, std::move(m)), wall_(wall) {
    obj_ = body("obj");
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
    const Vec3 p = body_xpos(obj_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(obj_geom_, out);
    return 4;
  }
  Eval evaluate_state(const double* /*obs*/, const float* /*action*/) override {
    const double tcp_to_target = norm(tcp_center() - target_pos_);
    const double in_place_margin = norm(hand_init_pos_ - target_pos_);
    const double in_place = tolerance(tcp_to_target, 0, 0.05, in_place_margin);
    Eval e;
    e.reward = py(10 * in_place);
    e.success = tcp_to_target <= 0.05;
    e.near_object = wall_ ? 0.0 : tcp_to_target;
    e.grasp_success = wall_ ? 0.0 : 1.0;
    e.grasp_reward = wall_ ? 0.0 : tcp_to_target;
    e.in_place_reward = in_place;
    e.obj_to_target = tcp_to_target;
    e.unscaled_reward = e.reward.as_f64();
    return e;
  }

 private:
  bool wall_;
  int obj_ = -1, goal_site_ = -1;
};

class ReachWall final : public Reach {
 public:
  ReachWall(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Reach(s, std::move(m), true) {}
};

}  // namespace

TaskEntry reach_task() {
  TaskInfo t;
  t.name = "reach-v3";
  t.xml = "sawyer_xyz/sawyer_reach_v3.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.6, 0.02, -0.1, 0.8, 0.05};
  t.rand_high = {0.1, 0.7, 0.02, 0.1, 0.9, 0.3};
  t.goal_low = {-0.1, 0.8, 0.05};
  t.goal_high = {0.1, 0.9, 0.3};
  return {t, &draw_apart<150>, &make_env<Reach>};
}

}  // namespace envhive::metaworld

namespace envhive::metaworld {
TaskEntry reach_wall_task() {
  TaskInfo t;
  t.name = "reach-wall-v3";
  t.xml = "sawyer_xyz/sawyer_reach_wall_v3.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.05, 0.6, 0.015, -0.05, 0.85, 0.05};
  t.rand_high = {0.05, 0.65, 0.015, 0.05, 0.9, 0.3};
  t.goal_low = {-0.05, 0.85, 0.05};
  t.goal_high = {0.05, 0.9, 0.3};
  return {t, &draw_apart<150>, &make_env<ReachWall>};
}
}  // namespace envhive::metaworld
