// peg-insert-side-v3, peg-unplug-side-v3: insert a peg sideways into a hole; pull a plug out sideways.
#include "object_task.h"

namespace envhive::metaworld {
namespace {

class PegInsertSide final : public SawyerEnv {
 public:
  PegInsertSide(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0, 0.6, 0.2};
    grasp_ = site("pegGrasp");
    head_ = site("pegHead");
    box_ = body("box");
    goal_site_ = site("goal");
    for (int i = 0; i < 2; ++i) {
      const std::string n = std::to_string(i + 1);
      brc_[i] = site(("bottom_right_corner_collision_box_" + n).c_str());
      tlc_[i] = site(("top_left_corner_collision_box_" + n).c_str());
    }
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = draw_apart<100>([this] { return state_rand_vec(); });
    obj_init_pos_ = {v[0], v[1], v[2]};
    peg_head_pos_init_ = site_xpos(head_);
    set_obj_xyz_default(obj_init_pos_);
    const Vec3 pos_box{v[3], v[4], v[5]};
    set_model_body_pos(box_, pos_box);
    target_pos_ = pos_box + Vec3{0.03, 0.0, 0.13};
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(grasp_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    quat_from_matrix(d_->site_xmat + 9 * grasp_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const Vec3 head = site_xpos(head_);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const auto scaled = [](const Vec3& a) { return Vec3{a[0] * 1.0, a[1] * 2.0, a[2] * 2.0}; };
    const double obj_to_target = norm(scaled(head - target_pos_));
    const double in_place_margin = norm(scaled(peg_head_pos_init_ - target_pos_));
    double in_place = tolerance(obj_to_target, 0, 0.07, in_place_margin);
    double boxes[2];
    for (int i = 0; i < 2; ++i) {
      const Vec3 brc = site_xpos(brc_[i]), tlc = site_xpos(tlc_[i]);
      boxes[i] = rect_prism_tolerance(head.data(), brc.data(), tlc.data());
    }
    const double collision_boxes = hamacher_product(boxes[1], boxes[0]);
    in_place = hamacher_product(in_place, collision_boxes);
    Num object_grasped = gripper_caging_reward(action, obj, 0.0075, 0.03, 0.01, 0.005, 1.0, true);
    const bool holding = tcp_to_obj < 0.08 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (holding) object_grasped = py(1.0);
    Num reward = hamacher_product(object_grasped, py(in_place));
    if (holding) reward = reward + py(1.0 + 5 * in_place);
    if (obj_to_target <= 0.07) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int grasp_ = -1, head_ = -1, box_ = -1, goal_site_ = -1, brc_[2] = {-1, -1}, tlc_[2] = {-1, -1};
  Vec3 peg_head_pos_init_{};
};

class PegUnplugSide final : public SawyerEnv {
 public:
  PegUnplugSide(const EnvSettings& s, std::shared_ptr<const mjModel> m) : SawyerEnv(s, std::move(m)) {
    hand_init_pos_ = {0, 0.6, 0.2};
    end_ = site("pegEnd");
    plug_ = body("plug1");
    box_ = body("box");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    const Vec3 pos_box{v[0], v[1], v[2]};
    set_model_body_pos(box_, pos_box);
    const Vec3 pos_plug = pos_box + Vec3{0.044, 0.0, 0.131};
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    std::copy(pos_plug.begin(), pos_plug.end(), qpos.begin() + 9);
    const double q[4] = {1.0, 0.0, 0.0, 0.0};
    std::copy(q, q + 4, qpos.begin() + 12);
    std::fill(qvel.begin() + 9, qvel.begin() + 12, 0.0);
    set_state(qpos.data(), qvel.data());
    obj_init_pos_ = site_xpos(end_);
    target_pos_ = pos_plug + Vec3{0.15, 0.0, 0.0};
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = site_xpos(end_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    body_quat(plug_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* action) override {
    const Vec3 obj = vec3(obs + 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = norm(obj - tcp_center());
    const double obj_to_target = norm(obj - target_pos_);
    const Num object_grasped = gripper_caging_reward(action, obj, 0.025, 0.05, 0.01, 0.005, 0.8, true);
    const double in_place_margin = norm(obj_init_pos_ - target_pos_);
    const double in_place = tolerance(obj_to_target, 0, 0.05, in_place_margin);
    const bool grasp_success = tcp_opened > 0.5 && obj[0] - obj_init_pos_[0] > 0.015;
    Num reward = py(2) * object_grasped;
    if (grasp_success && tcp_to_obj < 0.035) reward = (py(1) + py(2) * object_grasped) + py(5 * in_place);
    if (obj_to_target <= 0.05) reward = py(10.0);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.as_f64();
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward.as_f64();
    return e;
  }

 private:
  int end_ = -1, plug_ = -1, box_ = -1, goal_site_ = -1;
};

}  // namespace

TaskEntry peg_insert_side_task() {
  TaskInfo t;
  t.name = "peg-insert-side-v3";
  t.xml = "sawyer_xyz/sawyer_peg_insertion_side.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {0.0, 0.5, 0.02, -0.35, 0.4, -0.001};
  t.rand_high = {0.2, 0.7, 0.02, -0.25, 0.7, 0.001};
  t.goal_low = Vec3{-0.35, 0.4, -0.001} + Vec3{0.03, 0.0, 0.13};
  t.goal_high = Vec3{-0.25, 0.7, 0.001} + Vec3{0.03, 0.0, 0.13};
  return {t, &draw_apart<100>, &make_env<PegInsertSide>};
}
TaskEntry peg_unplug_side_task() {
  TaskInfo t;
  t.name = "peg-unplug-side-v3";
  t.xml = "sawyer_xyz/sawyer_peg_unplug_side.xml";
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {-0.25, 0.6, -0.001};
  t.rand_high = {-0.15, 0.8, 0.001};
  t.goal_low = Vec3{-0.25, 0.6, -0.001} + Vec3{0.194, 0.0, 0.131};
  t.goal_high = Vec3{-0.15, 0.8, 0.001} + Vec3{0.194, 0.0, 0.131};
  return {t, &draw_once, &make_env<PegUnplugSide>};
}

}  // namespace envhive::metaworld
