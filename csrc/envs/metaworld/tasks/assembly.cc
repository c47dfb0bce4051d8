// assembly-v3, disassemble-v3: put a nut (wrench) on a peg; take it off.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class NutTask : public SawyerEnv {
 public:
  NutTask(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool assemble)
      : SawyerEnv(s, std::move(m)), assemble_(assemble) {
    hand_init_pos_ = assemble ? f32_vec(0, 0.6, 0.2) : f32_vec(0, 0.4, 0.2);
    nut_site_ = site("RoundNut-8");
    nut_center_ = site("RoundNut");
    nut_ = body("RoundNut");
    peg_ = body("peg");
    peg_top_ = site("pegTop");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<100>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], v[2]};
    if (assemble_) {
      target_pos_ = {v[3], v[4], v[5]};
      set_obj_xyz_default(obj_init_pos_);
      set_model_body_pos(peg_, target_pos_ - Vec3{0.0, 0.0, 0.05});
      set_model_site_pos(peg_top_, target_pos_);
    } else {
      target_pos_ = obj_init_pos_ + Vec3{0, 0, 0.15};
      set_model_body_pos(peg_, obj_init_pos_ + Vec3{0.0, 0.0, 0.03});
      set_model_site_pos(peg_top_, obj_init_pos_ + Vec3{0.0, 0.0, 0.08});
      mj_forward(m_, d_);
      set_obj_xyz_default(obj_init_pos_);
    }
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(nut_site_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(nut_, out);
    return 4;
  }
  static double reward_quat(const double* obs) {
    const double d[4] = {obs[7] - 0.707, obs[8] - 0, obs[9] - 0, obs[10] - 0.707};
    const double error = norm(d, 4);
    const double r = 1.0 - error / 0.4;
    return 0.0 > r ? 0.0 : r;  // max(r, 0.0)
  }
  // assembly's _reward_pos: (in_place, success).
  static std::pair<double, bool> assemble_pos(const Vec3& wrench_center, const Vec3& target) {
    Vec3 pos_error = target - wrench_center;
    const double radius = norm(pos_error, 2);
    const bool success = radius < 0.02 && pos_error[2] > 0.0;
    const double threshold = success ? 0.02 : 0.01;
    double target_height = 0.0;
    if (radius > threshold) target_height = 0.02 * np_log(radius - threshold) + 0.2;
    pos_error[2] = target_height - wrench_center[2];
    const bool lifted = wrench_center[2] > 0.02 || radius < threshold;
    const Vec3 scaled{pos_error[0] * 1.0, pos_error[1] * 1.0, pos_error[2] * 3.0};
    const double in_place = 0.1 * static_cast<double>(lifted) + 0.9 * tolerance(norm(scaled), 0, 0.02, 0.4);
    return {in_place, success};
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 hand = vec3(obs), wrench = vec3(obs + 4);
    const Vec3 wrench_center = site_xpos(nut_center_);
    Vec3 wrench_threshed = wrench;
    if (std::abs(wrench[0] - hand[0]) < 0.02 / 2.0) wrench_threshed[0] = hand[0];
    const double quat = reward_quat(obs);
    const Num grab = assemble_ ? gripper_caging_reward(action, wrench_threshed, 0.015, 0.02, 0.01, 0.01, 1.0, false, true)
                               : gripper_caging_reward(action, wrench_threshed, 0.015, 0.02, 0.01, 0.01, 1.0, true);
    double in_place;
    bool success;
    if (assemble_) {
      std::tie(in_place, success) = assemble_pos(wrench_center, target_pos_);
    } else {
      const Vec3 pos_error = target_pos_ + Vec3{0.0, 0.0, 0.1} - wrench_center;
      in_place = 0.1 * static_cast<double>(wrench_center[2] > 0.02) + 0.9 * tolerance(norm(pos_error), 0, 0.02, 0.2);
      success = obs[6] > target_pos_[2];
    }
    Num reward = (py(2.0) * grab + py(6.0 * in_place)) * py(quat);
    if (success) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = success;
    e.near_object = quat;
    e.grasp_success = grab >= py(0.5);
    e.grasp_reward = grab.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = 0;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  bool assemble_;
  int nut_site_ = -1, nut_center_ = -1, nut_ = -1, peg_ = -1, peg_top_ = -1;
};

template <bool kAssemble>
class NutTaskOf final : public NutTask {
 public:
  NutTaskOf(const EnvSettings& s, std::shared_ptr<const mjModel> m) : NutTask(s, std::move(m), kAssemble) {}
};

}  // namespace

TaskEntry assembly_task() {
  TaskInfo t;
  t.name = "assembly-v3";
  t.xml = "sawyer_xyz/sawyer_assembly_peg.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0, 0.6, 0.02, -0.1, 0.75, 0.1};
  t.rand_high = {0, 0.6, 0.02, 0.1, 0.85, 0.1};
  t.goal_low = {-0.1, 0.75, 0.1};
  t.goal_high = {0.1, 0.85, 0.1};
  return {t, &draw_apart<100>, &make_env<NutTaskOf<true>>};
}
TaskEntry disassemble_task() {
  TaskInfo t;
  t.name = "disassemble-v3";
  t.xml = "sawyer_xyz/sawyer_assembly_peg.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0.0, 0.6, 0.025, -0.1, 0.6, 0.1699};
  t.rand_high = {0.1, 0.75, 0.02501, 0.1, 0.75, 0.1701};
  t.goal_low = Vec3{-0.1, 0.6, 0.1699} + Vec3{0.0, 0.0, 0.005};
  t.goal_high = Vec3{0.1, 0.75, 0.1701} + Vec3{0.0, 0.0, 0.005};
  return {t, &draw_apart<100>, &make_env<NutTaskOf<false>>};
}

}  // namespace envhive::metaworld
