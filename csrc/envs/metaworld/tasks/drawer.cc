// drawer-open-v3, drawer-close-v3: pull a drawer open by its handle; push it shut.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class DrawerBase : public SawyerEnv {
 public:
  DrawerBase(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    drawer_ = body("drawer");
    link_ = body("drawer_link");
    goal_site_ = site("goal");
  }

 protected:
  int drawer_ = -1, link_ = -1, goal_site_ = -1;
};

class DrawerOpen final : public DrawerBase {
 public:
  using DrawerBase::DrawerBase;

 protected:
  static constexpr double kMaxDist = 0.2;
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    set_model_body_pos(drawer_, obj_init_pos_);  // no mj_forward: the reset observation is the stale one
    target_pos_ = obj_init_pos_ + Vec3{0.0, -0.16 - kMaxDist, 0.09};
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = body_xpos(link_) + Vec3{0.0, -0.16, 0.0};
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(link_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 gripper = vec3(obs), handle = vec3(obs + 4);
    const double handle_error = norm(handle - target_pos_);
    const double opening = tolerance(handle_error, 0, 0.02, kMaxDist);
    const Vec3 handle_pos_init = target_pos_ + Vec3{0.0, kMaxDist, 0.0};
    const auto scale = [](const Vec3& a) { return Vec3{a[0] * 3.0, a[1] * 3.0, a[2] * 1.0}; };
    const Vec3 gripper_error = scale(handle - gripper);
    const Vec3 gripper_error_init = scale(handle_pos_init - init_tcp_);
    const double caging = tolerance(norm(gripper_error), 0, 0.01, norm(gripper_error_init));
    const double reward = (caging + opening) * 5.0;
    const double gripper_dist = norm(handle - gripper);
    Eval e;
    e.reward = py(reward);
    e.success = handle_error <= 0.03;
    e.near_object = gripper_dist <= 0.03;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = caging;
    e.in_place_reward = opening;
    e.obj_to_target = handle_error;
    e.unscaled_reward = reward;
    return e;
  }
};

class DrawerClose final : public DrawerBase {
 public:
  using DrawerBase::DrawerBase;

 protected:
  static constexpr double kMaxDist = 0.15, kTargetRadius = 0.05;  // SawyerXYZEnv.TARGET_RADIUS
  Vec3 handle() const { return body_xpos(link_) + Vec3{0.0, -0.16, 0.05}; }
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    const Vec3 init{v[0], v[1], v[2]};
    set_model_body_pos(drawer_, init);
    target_pos_ = init + Vec3{0.0, -0.16, 0.09};
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    qpos[9] = -kMaxDist;  // _set_obj_xyz: the drawer's slide (its velocity kept)
    set_state(qpos.data(), qvel.data());
    obj_init_pos_ = handle();
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = handle();
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    std::fill(out, out + 4, 0.0);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double target_to_obj = norm(obj - target_pos_);
    const double target_to_obj_init = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    const double radius = 0.005;
    const double tcp_to_obj = norm(obj - tcp_center());
    const double tcp_to_obj_init = norm(obj_init_pos_ - init_tcp_);
    const double reach0 = tolerance(tcp_to_obj, 0, radius, std::abs(tcp_to_obj_init - radius), Sigmoid::kGaussian);
    const float a = action[3];  // min(max(0, action[-1]), 1)
    Num closed = a > 0.0f ? f32(a) : py(0);
    if (py(1) < closed) closed = py(1);
    const Num reach = hamacher_product(py(reach0), closed);
    Num reward = hamacher_product(reach, py(in_place));
    if (target_to_obj <= kTargetRadius + 0.015) reward = py(1.0);
    reward = reward * py(10);
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= kTargetRadius + 0.015;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    e.unscaled_reward = reward.as_f64();
    return e;
  }
};

TaskInfo info(const char* name) {
  TaskInfo t;
  t.name = name;
  t.xml = "sawyer_xyz/sawyer_drawer.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.9, 0.0};
  t.rand_high = {0.1, 0.9, 0.0};
  t.goal_low = t.hand_low;
  t.goal_high = t.hand_high;
  return t;
}

}  // namespace

TaskEntry drawer_open_task() { return {info("drawer-open-v3"), &draw_once, &make_env<DrawerOpen>}; }
TaskEntry drawer_close_task() { return {info("drawer-close-v3"), &draw_once, &make_env<DrawerClose>}; }

}  // namespace envhive::metaworld
