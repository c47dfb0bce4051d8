// What most tasks share: one object observed by its body "obj" (or its geom "objGeom") position and
// the quaternion of "objGeom", and a "goal" site moved to the target at reset.
#pragma once

#include "../quat.h"
#include "../task_table.h"

namespace envhive::metaworld {

class ObjectTask : public SawyerEnv {
 public:
  enum class Pos { kBody, kGeom };  // get_body_com("obj") or data.geom("objGeom").xpos
  ObjectTask(const EnvSettings& s, std::shared_ptr<const mjModel> m, Pos pos = Pos::kBody)
      : SawyerEnv(s, std::move(m)), pos_(pos) {
    obj_ = body("obj");
    goal_site_ = site("goal");
  }

 protected:
  int pos_objects(double* out) const override {
    const Vec3 p = pos_ == Pos::kBody ? body_xpos(obj_) : geom_xpos(obj_geom_);
    std::copy(p.begin(), p.end(), out);
    return 3;
  }
  int quat_objects(double* out) const override {
    geom_quat(obj_geom_, out);
    return 4;
  }
  // The objGeom's position, z the way adjust_initObjPos / fix_extreme_obj_pos read it.
  double obj_geom_z() const { return geom_xpos(obj_geom_)[2]; }
  double obj_body_z() const { return body_xpos(obj_)[2]; }

  Pos pos_;
  int obj_ = -1, goal_site_ = -1;
};

// The info of the many tasks whose evaluate_state reads
// (reward, tcp_to_obj, tcp_open, obj_to_target, grasp_reward, in_place_reward) and the main object.
inline Eval object_eval(const Num& reward, double tcp_to_obj, double tcp_open, double obj_to_target,
                        double grasp_reward, double in_place, double success_radius, bool grasp_success) {
  Eval e;
  e.reward = reward;
  e.success = obj_to_target <= success_radius;
  e.near_object = tcp_to_obj <= 0.03;
  e.grasp_success = grasp_success;
  e.grasp_reward = grasp_reward;
  e.in_place_reward = in_place;
  e.obj_to_target = obj_to_target;
  e.unscaled_reward = reward.as_f64();
  (void)tcp_open;
  return e;
}

// A hand_init_pos given as np.array(..., dtype=np.float32): the float32 values.
inline Vec3 f32_vec(double x, double y, double z) {
  return {npcompat::f32(x), npcompat::f32(y), npcompat::f32(z)};
}

}  // namespace envhive::metaworld
