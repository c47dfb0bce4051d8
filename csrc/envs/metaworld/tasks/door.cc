// door-open-v3 (SawyerDoorEnvV3) and door-close-v3: pull a door open by its handle; push it shut.
#include <cmath>

#include "../task_table.h"

namespace envhive::metaworld {
namespace {

constexpr double kPi = npcompat::kPi;

class DoorOpen final : public SawyerEnv {
 public:
  DoorOpen(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    const int j = joint("doorjoint");
    door_qpos_adr_ = m_->jnt_qposadr[j];
    door_qvel_adr_ = m_->jnt_dofadr[j];
    handle_ = geom("handle");
    door_ = body("door");
    goal_site_ = site("goal");
  }

 protected:
  void set_obj_xyz(double angle) {
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    qpos[door_qpos_adr_] = angle;
    qvel[door_qvel_adr_] = 0;
    set_state(qpos.data(), qvel.data());
  }
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = obj_init_pos_ + Vec3{-0.3, -0.45, 0.0};
    set_model_body_pos(door_, obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
    set_obj_xyz(0);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = geom_xpos(handle_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(handle_, out);
    return 4;
  }
  // _reward_pos(obs, theta): (ready_to_open, opened).
  static std::pair<double, double> reward_pos(const double* obs, double theta) {
    const Vec3 hand = vec3(obs);
    const Vec3 door = vec3(obs + 4) + Vec3{-0.05, 0, 0};
    const double threshold = 0.12;
    const double radius = norm(hand - door, 2);
    const double floor = radius <= threshold ? 0.0 : 0.04 * np_log(radius - threshold) + 0.4;
    const double above_floor =
        hand[2] >= floor ? 1.0 : tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place = tolerance(norm(hand - door - Vec3{0.05, 0.03, -0.01}), 0, threshold / 2.0, 0.5);
    const double ready_to_open = hamacher_product(above_floor, in_place);
    const double door_angle = -theta;
    const double opened = 0.2 * static_cast<double>(theta < -kPi / 90.0) +
                          0.8 * tolerance(kPi / 2.0 + kPi / 6 - door_angle, 0, 0.5, kPi / 3.0);
    return {ready_to_open, opened};
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const double theta = d_->qpos[door_qpos_adr_];
    float a = action[3];  // float((np.clip(actions[3], -1, 1) + 1.0) / 2.0), in float32
    if (!std::isnan(a)) a = a < -1.0f ? -1.0f : (a > 1.0f ? 1.0f : a);
    const double reward_grab = static_cast<double>((a + 1.0f) / 2.0f);
    const auto [ready, opened] = reward_pos(obs, theta);
    double reward = 2.0 * hamacher_product(ready, reward_grab) + 8.0 * opened;
    const bool success = std::abs(obs[4] - target_pos_[0]) <= 0.08;
    if (success) reward = 10.0;
    Eval e;
    e.reward = py(reward);
    e.success = success;
    e.near_object = ready;
    e.grasp_success = reward_grab >= 0.5;
    e.grasp_reward = reward_grab;
    e.in_place_reward = opened;
    e.obj_to_target = 0;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int door_qpos_adr_ = 0, door_qvel_adr_ = 0, handle_ = -1, door_ = -1, goal_site_ = -1;
};

class DoorClose final : public SawyerEnv {
 public:
  DoorClose(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {npcompat::f32(-0.5), npcompat::f32(0.6), npcompat::f32(0.2)};
    const int j = joint("doorjoint");
    door_qpos_adr_ = m_->jnt_qposadr[j];
    door_qvel_adr_ = m_->jnt_dofadr[j];
    handle_ = geom("handle");
    door_ = body("door");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = obj_init_pos_ + Vec3{0.2, -0.2, 0.0};
    set_model_body_pos(door_, obj_init_pos_);
    set_model_site_pos(goal_site_, target_pos_);
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    qpos[door_qpos_adr_] = -1.5708;
    qvel[door_qvel_adr_] = 0;
    set_state(qpos.data(), qvel.data());
  }
  int pos_objects(double* out) const override {
    const Vec3 p = geom_xpos(handle_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(handle_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const Vec3 obj = vec3(obs + 4);
    const double radius = 0.05;
    const double tcp_to_target = norm(tcp_center() - target_pos_);
    const double obj_to_target = norm(obj - target_pos_);
    const double in_place_margin = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(obj_to_target, 0, radius, in_place_margin, Sigmoid::kGaussian);
    const double hand_margin = norm(hand_init_pos_ - obj) + 0.1;
    const double hand_in_place = tolerance(tcp_to_target, 0, 0.25 * radius, hand_margin, Sigmoid::kGaussian);
    double reward = 3 * hand_in_place + 6 * in_place;
    if (obj_to_target < radius) reward = 10;
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.08;
    e.near_object = 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = 1.0;
    e.in_place_reward = hand_in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  int door_qpos_adr_ = 0, door_qvel_adr_ = 0, handle_ = -1, door_ = -1, goal_site_ = -1;
};

}  // namespace

TaskEntry door_close_task() {
  TaskInfo t;
  t.name = "door-close-v3";
  t.xml = "sawyer_xyz/sawyer_door_pull.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0.0, 0.85, 0.15};
  t.rand_high = {0.1, 0.95, 0.15};
  t.goal_low = {0.2, 0.65, 0.1499};
  t.goal_high = {0.3, 0.75, 0.1501};
  return {t, &draw_once, &make_env<DoorClose>};
}

TaskEntry door_open_task() {
  TaskInfo t;
  t.name = "door-open-v3";
  t.xml = "sawyer_xyz/sawyer_door_pull.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0.0, 0.85, 0.15};
  t.rand_high = {0.1, 0.95, 0.15};
  t.goal_low = {-0.3, 0.4, 0.1499};
  t.goal_high = {-0.2, 0.5, 0.1501};
  return {t, &draw_once, &make_env<DoorOpen>};
}

}  // namespace envhive::metaworld
