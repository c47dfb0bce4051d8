// stick-push-v3, stick-pull-v3: grasp a stick and push (pull) a thermos-like container with it.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class Stick : public SawyerEnv {
 public:
  Stick(const EnvSettings& s, std::shared_ptr<const mjModel> m, bool push) : SawyerEnv(s, std::move(m)), push_(push) {
    hand_init_pos_ = {0, 0.6, 0.2};
    stick_ = body("stick");
    object_ = body("object");
    insertion_ = site("insertion");
    stick_end_ = site("stick_end");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<100>([this] { return state_rand_vec(); });
    stick_init_pos_ = {v[0], v[1], 0.02};
    target_pos_ = {v[3], v[4], push_ ? site_xpos(insertion_)[2] : 0.02};
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    std::copy(stick_init_pos_.begin(), stick_init_pos_.end(), qpos.begin() + 9);  // _set_stick_xyz
    std::fill(qvel.begin() + 9, qvel.begin() + 15, 0.0);
    set_state(qpos.data(), qvel.data());
    qpos.assign(d_->qpos, d_->qpos + m_->nq);  // _set_obj_xyz(obj_init_qpos)
    qvel.assign(d_->qvel, d_->qvel + m_->nv);
    qpos[16] = 0.0;
    qpos[17] = push_ ? 0.0 : 0.09;
    for (size_t i = 16; i < 18 && i < qvel.size(); ++i) qvel[i] = 0.0;  // qvel[16:18] (nv is 17: numpy clips the slice)
    set_state(qpos.data(), qvel.data());
    obj_init_pos_ = body_xpos(object_);
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 a = body_xpos(stick_);
    const Vec3 b = push_ ? site_xpos(insertion_) + Vec3{0.0, 0.09, 0.0} : site_xpos(insertion_);
    std::copy(a.begin(), a.end(), out);
    std::copy(b.begin(), b.end(), out + 3);
    return 6;
  }
  int quat_objects(double* out) const override {
    quat_from_matrix(d_->xmat + 9 * stick_, out);
    std::fill(out + 4, out + 8, 0.0);
    return 8;
  }
  Eval evaluate_state(const double* obs, const float* action) override { return push_ ? push(obs, action) : pull(obs, action); }

  Eval push(const double* obs, const float* action) {
    const double radius = 0.12;
    const Vec3 tcp = tcp_center();
    const Vec3 stick = vec3(obs + 4) + Vec3{0.015, 0.0, 0.0};
    const Vec3 container = vec3(obs + 11);
    const double tcp_opened = obs[3];
    const double tcp_to_stick = norm(stick - tcp);
    const double stick_to_target = norm(stick - target_pos_);
    const double stick_margin = norm(stick_init_pos_ - target_pos_) - radius;
    const double stick_in_place = tolerance(stick_to_target, 0, radius, stick_margin);
    const double container_to_target = norm(container - target_pos_);
    const double container_margin = norm(obj_init_pos_ - target_pos_) - radius;
    const double container_in_place = tolerance(container_to_target, 0, radius, container_margin);
    // its own _gripper_caging_reward: the base one around the stick's start
    Num object_grasped = gripper_caging_reward(action, stick, 0.04, 0.05, 0.01, 0.01, 1.0, true, false, &stick_init_pos_);
    Num reward = object_grasped;
    if (tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_pos_[2]) {
      object_grasped = py(1);
      reward = py(2.0 + 5.0 * stick_in_place + 3.0 * container_in_place);
      if (container_to_target <= radius) reward = py(10.0);
    }
    const Vec3 raw_stick = vec3(obs + 4);
    const bool success = norm(container - target_pos_) <= 0.12;
    const bool grasp = touching_object(obj_geom_) && tcp_opened > 0 && raw_stick[2] - 0.01 > stick_init_pos_[2];
    Eval e;
    e.reward = reward;
    e.success = grasp ? static_cast<double>(success) : 0.0;  // `grasp_success and success`
    e.near_object = tcp_to_stick <= 0.03;
    e.grasp_success = grasp;
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = stick_in_place;
    e.obj_to_target = container_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

  static bool inserted(const Vec3& handle, const Vec3& end) {
    return end[0] >= handle[0] && std::abs(end[1] - handle[1]) <= 0.04 && std::abs(end[2] - handle[2]) <= 0.06;
  }
  Eval pull(const double* obs, const float* action) {
    const double radius = 0.05;
    const Vec3 tcp = tcp_center();
    const Vec3 stick = vec3(obs + 4);
    const Vec3 end_of_stick = site_xpos(stick_end_);
    const Vec3 container = vec3(obs + 11) + Vec3{0.05, 0.0, 0.0};
    const Vec3 container_init = obj_init_pos_ + Vec3{0.05, 0.0, 0.0};
    const Vec3 handle = vec3(obs + 11);
    const double tcp_opened = obs[3];
    const double tcp_to_stick = norm(stick - tcp);
    const double handle_to_target = norm(handle - target_pos_);
    const auto yz = [](const Vec3& a) { return Vec3{a[0] * 1.0, a[1] * 1.0, a[2] * 2.0}; };
    const double stick_to_container = norm(yz(stick - container));
    const double sip_margin = norm(yz(stick_init_pos_ - container_init));
    const double stick_in_place = tolerance(stick_to_container, 0, radius, sip_margin);
    const double stick_to_target = norm(stick - target_pos_);
    const double sip2_margin = norm(stick_init_pos_ - target_pos_);
    const double stick_in_place_2 = tolerance(stick_to_target, 0, radius, sip2_margin);
    const double container_to_target = norm(container - target_pos_);
    const double cip_margin = norm(obj_init_pos_ - target_pos_);
    const double container_in_place = tolerance(container_to_target, 0, radius, cip_margin);
    Num object_grasped = gripper_caging_reward(action, stick, 0.014, 0.05, 0.01, 0.01, 1.0, true);
    const bool grasp_success = tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_pos_[2];
    if (grasp_success) object_grasped = py(1);
    const Num grasped_in_place = hamacher_product(object_grasped, py(stick_in_place));
    Num reward = grasped_in_place;
    if (grasp_success) {
      reward = (py(1.0) + grasped_in_place) + py(5.0 * stick_in_place);
      if (inserted(handle, end_of_stick)) {
        reward = (((py(1.0) + grasped_in_place) + py(5.0)) + py(2.0 * stick_in_place_2)) + py(1.0 * container_in_place);
        if (handle_to_target <= 0.12) reward = py(10.0);
      }
    }
    Eval e;
    e.reward = reward;
    e.success = norm(handle - target_pos_) <= 0.12 && inserted(handle, end_of_stick);
    e.near_object = tcp_to_stick <= 0.03;
    e.grasp_success = touching_object(obj_geom_) && tcp_opened > 0 && stick[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = stick_in_place;
    e.obj_to_target = handle_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  bool push_;
  int stick_ = -1, object_ = -1, insertion_ = -1, stick_end_ = -1, goal_site_ = -1;
  Vec3 stick_init_pos_{};
};

template <bool kPush>
class StickTask final : public Stick {
 public:
  StickTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : Stick(s, std::move(m), kPush) {}
};

}  // namespace

TaskEntry stick_push_task() {
  TaskInfo t;
  t.name = "stick-push-v3";
  t.xml = "sawyer_xyz/sawyer_stick_obj.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.08, 0.58, 0.0, 0.399, 0.55, 0.1319};
  t.rand_high = {-0.03, 0.62, 0.001, 0.401, 0.6, 0.1321};
  t.goal_low = {0.399, 0.55, 0.1319};
  t.goal_high = {0.401, 0.6, 0.1321};
  return {t, &draw_apart<100>, &make_env<StickTask<true>>};
}
TaskEntry stick_pull_task() {
  TaskInfo t;
  t.name = "stick-pull-v3";
  t.xml = "sawyer_xyz/sawyer_stick_obj.xml";
  t.hand_low = {-0.5, 0.35, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.1, 0.55, 0.0, 0.35, 0.45, 0.0199};
  t.rand_high = {0.0, 0.65, 0.001, 0.45, 0.55, 0.0201};
  t.goal_low = {0.35, 0.45, 0.0199};
  t.goal_high = {0.45, 0.55, 0.0201};
  return {t, &draw_apart<100>, &make_env<StickTask<false>>};
}

}  // namespace envhive::metaworld
