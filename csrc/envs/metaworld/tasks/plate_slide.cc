// plate-slide-v3, plate-slide-side-v3, plate-slide-back-v3, plate-slide-back-side-v3: slide a puck
// into a goal (sideways; backwards).
#include "object_task.h"

namespace envhive::metaworld {
namespace {

enum class Variant { kSlide, kSide, kBack, kBackSide };

class PlateSlide : public SawyerEnv {
 public:
  PlateSlide(const EnvSettings& s, std::shared_ptr<const mjModel> m, Variant v) : SawyerEnv(s, std::move(m)), v_(v) {
    hand_init_pos_ = f32_vec(0, 0.6, 0.2);
    puck_ = geom("puck");
    puck_goal_ = body("puck_goal");
    goal_site_ = site("goal");
  }

 protected:
  void reset_model() override {
    reset_hand();
    const RandVec v = state_rand_vec();
    if (v_ == Variant::kSlide) init_tcp_ = tcp_center();
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[3], v[4], v[5]};
    // plate-slide moves the goal body in the model; side and back write data.body().xpos (undone by the
    // next mj_forward); back-side moves it to the puck's start.
    if (v_ == Variant::kSlide) set_model_body_pos(puck_goal_, target_pos_);
    if (v_ == Variant::kBackSide) set_model_body_pos(puck_goal_, obj_init_pos_);
    std::vector<double> qpos(d_->qpos, d_->qpos + m_->nq), qvel(d_->qvel, d_->qvel + m_->nv);
    const double start[4][2] = {{0, 0}, {0, 0}, {0, 0.15}, {-0.15, 0.0}};
    qpos[9] = start[static_cast<int>(v_)][0];
    qpos[10] = start[static_cast<int>(v_)][1];
    set_state(qpos.data(), qvel.data());
    set_model_site_pos(goal_site_, target_pos_);
  }
  int pos_objects(double* out) const override {
    const Vec3 p = geom_xpos(puck_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(puck_, out);
    return 4;
  }
  Eval evaluate_state(const double* obs, const float* /*action*/) override {
    const double radius = 0.05;
    const Vec3 tcp = tcp_center();
    const Vec3 obj = vec3(obs + 4);
    const double obj_to_target = norm(obj - target_pos_);
    const double in_place_margin = norm(obj_init_pos_ - target_pos_);
    const double tcp_to_obj = norm(tcp - obj);
    const double grasped_margin = norm(init_tcp_ - obj_init_pos_);
    double reward, in_place, object_grasped;
    if (v_ == Variant::kSlide) {
      in_place = tolerance(obj_to_target, 0, radius, in_place_margin);
      object_grasped = tolerance(tcp_to_obj, 0, radius, grasped_margin);
      reward = 8 * hamacher_product(object_grasped, in_place);
    } else {
      in_place = tolerance(obj_to_target, 0, radius, in_place_margin - radius);
      object_grasped = tolerance(tcp_to_obj, 0, radius, grasped_margin - radius);
      reward = 1.5 * object_grasped;
      if (tcp[2] <= 0.03 && tcp_to_obj < 0.07) reward = 2.0 + 7.0 * in_place;
    }
    if (obj_to_target < radius) reward = 10.0;
    Eval e;
    e.reward = py(reward);
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    e.unscaled_reward = reward;
    return e;
  }

 private:
  Variant v_;
  int puck_ = -1, puck_goal_ = -1, goal_site_ = -1;
};

template <Variant V>
class PlateSlideTask final : public PlateSlide {
 public:
  PlateSlideTask(const EnvSettings& s, std::shared_ptr<const mjModel> m) : PlateSlide(s, std::move(m), V) {}
};

TaskInfo info(const char* name, const char* xml, Vec3 obj_low, Vec3 obj_high, Vec3 goal_low, Vec3 goal_high) {
  TaskInfo t;
  t.name = name;
  t.xml = xml;
  t.hand_low = {-0.5, 0.40, 0.05};
  t.hand_high = {0.5, 1, 0.5};
  t.rand_low = {obj_low[0], obj_low[1], obj_low[2], goal_low[0], goal_low[1], goal_low[2]};
  t.rand_high = {obj_high[0], obj_high[1], obj_high[2], goal_high[0], goal_high[1], goal_high[2]};
  t.goal_low = goal_low;
  t.goal_high = goal_high;
  return t;
}

}  // namespace

TaskEntry plate_slide_task() {
  return {info("plate-slide-v3", "sawyer_xyz/sawyer_plate_slide.xml", {0.0, 0.6, 0.0}, {0.0, 0.6, 0.0},
               {-0.1, 0.85, 0.0}, {0.1, 0.9, 0.0}),
          &draw_once, &make_env<PlateSlideTask<Variant::kSlide>>};
}
TaskEntry plate_slide_side_task() {
  return {info("plate-slide-side-v3", "sawyer_xyz/sawyer_plate_slide_sideway.xml", {0.0, 0.6, 0.0}, {0.0, 0.6, 0.0},
               {-0.3, 0.54, 0.0}, {-0.25, 0.66, 0.0}),
          &draw_once, &make_env<PlateSlideTask<Variant::kSide>>};
}
TaskEntry plate_slide_back_task() {
  return {info("plate-slide-back-v3", "sawyer_xyz/sawyer_plate_slide.xml", {0.0, 0.85, 0.0}, {0.0, 0.85, 0.0},
               {-0.1, 0.6, 0.015}, {0.1, 0.6, 0.015}),
          &draw_once, &make_env<PlateSlideTask<Variant::kBack>>};
}
TaskEntry plate_slide_back_side_task() {
  return {info("plate-slide-back-side-v3", "sawyer_xyz/sawyer_plate_slide_sideway.xml", {-0.25, 0.6, 0.0},
               {-0.25, 0.6, 0.0}, {-0.05, 0.6, 0.015}, {0.15, 0.6, 0.015}),
          &draw_once, &make_env<PlateSlideTask<Variant::kBackSide>>};
}

}  // namespace envhive::metaworld
