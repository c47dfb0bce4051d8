// door-lock-v3, door-unlock-v3: turn a door's lock down (up). The reference keeps
// data.body("lock_link").xpos and data.body("leftpad").xpos as live views: the positions now.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class DoorLock : public SawyerEnv {
 public:
  DoorLock(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool lock) : SawyerEnv(s, std::move(m)), lock_(lock) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    door_ = body("door");
    door_link_ = body("door_link");
    lock_link_ = body("lock_link");
    start_ = site(lock ? "lockStartLock" : "lockStartUnlock");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    set_model_body_pos(door_, {v[0], v[1], v[2]});
    if (lock_) {
      for (int i = 0; i < kFrameSkip; ++i) mj_step(m_, d_);
      target_pos_ = body_xpos(lock_link_) + Vec3{0.0, -0.04, -0.1};
    } else {
      std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
      qpos[9] = 1.5708;
      qvel[9] = 0;
      set_state(qpos.data(), qvel.data());
      target_pos_ = body_xpos(lock_link_) + Vec3{0.1, -0.04, 0.0};
    }
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(start_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(door_link_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 0.25, a[1] * 1.0, a[2] * 0.5}; };
    double reward, tcp_to_obj, obj_to_target, near, pressed;
    if (lock_) {
      const Vec3 tcp = body_xpos(left_pad_);  // also init_left_pad (a view of the same row)
      tcp_to_obj = norm(scaled(obj - tcp));
      const double tcp_to_obj_init = norm(scaled(obj - tcp));
      obj_to_target = std::abs(target_pos_[2] - obj[2]);
      const double tcp_opened = 0.0 > obs[3] ? 0.0 : obs[3];
      near = tolerance(tcp_to_obj, 0, 0.01, tcp_to_obj_init);
      pressed = tolerance(obj_to_target, 0, 0.005, 0.1);
      reward = 2 * hamacher_product(tcp_opened, near);
      reward += 8 * pressed;
    } else {
      const Vec3 gripper = vec3(obs);
      const Vec3 offset{0.0, 0.055, 0.07};
      const Vec3 shoulder_to_lock = scaled(gripper + offset - obj);
      const Vec3 shoulder_to_lock_init = scaled(init_tcp_ + offset - body_xpos(lock_link_));
      tcp_to_obj = norm(shoulder_to_lock);
      near = tolerance(tcp_to_obj, 0, 0.02, norm(shoulder_to_lock_init));
      obj_to_target = std::abs(target_pos_[0] - obj[0]);
      pressed = tolerance(obj_to_target, 0, 0.005, 0.1);
      reward = 2 * near + 8 * pressed;
    }
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.02;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near;
    e.in_place_reward = pressed;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  bool lock_;
  int door_ = -1, door_link_ = -1, lock_link_ = -1, start_ = -1;
};

template <bool kLock>
class DoorLockTask final : public DoorLock {
 public:
  DoorLockTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : DoorLock(s, std::move(m), kLock) {}
};

TaskInfo info(const char* name, Vec3 goal_low, Vec3 goal_high) {
  TaskInfo t;
  t.name = name;
  t.xml = "sawyer_xyz/sawyer_door_lock.xml";
  t.hand_low = {-0.5, 0.40, -0.15};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.8, 0.15};
  t.rand_high = {0.1, 0.85, 0.15};
  t.goal_low = goal_low;
  t.goal_high = goal_high;
  return t;
}

}  // namespace

TaskEntry door_lock_task() {
  return {info("door-lock-v3", {-0.5, 0.40, -0.15}, {0.5, 1, 0.5}), &draw_once, &make_env<DoorLockTask<true>>};
}
TaskEntry door_unlock_task() {
  return {info("door-unlock-v3", {0.0, 0.64, 0.21}, {0.2, 0.7, 0.2111}), &draw_once, &make_env<DoorLockTask<false>>};
}

}  // namespace envhive::metaworld
