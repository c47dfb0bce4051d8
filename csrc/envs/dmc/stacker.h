// dm_control's stacker domain (suite/stacker.py): stack_2, stack_4 (fully observable by default, the suite's
// default). The boxes come from the XML dm_control builds for each task.
#pragma once

#include <string>

#include "planar_arm.h"

namespace envhive::dmc {

class StackerEnv final : public PlanarArmEnv {
 public:
  static ObsLeaves observation(const mjModel& m, const Params& p) {
    if (!p.fully_observable) return {{"arm_pos", {kArmJoints, 2}}, {"arm_vel", {kArmJoints}}, {"touch", {m.nsensordata}}};
    const int64_t boxes = n_boxes(p.task);
    return {{"arm_pos", {kArmJoints, 2}}, {"arm_vel", {kArmJoints}},  {"touch", {m.nsensordata}}, {"hand_pos", {4}},
            {"box_pos", {boxes, 4}},      {"box_vel", {3 * boxes}}, {"target_pos", {2}}};
  }

  StackerEnv(const Params& p, int env_id, const DmcTask& t)
      : PlanarArmEnv(p, env_id),
        fully_observable_(p.fully_observable),
        hand_(body("hand")),
        target_(body("target")),
        target_geom_(id(mjOBJ_GEOM, "target")),
        target_site_(site("target")),
        grasp_(site("grasp")) {
    for (int b = 0; b < n_boxes(t); ++b) {
      const std::string name = "box" + std::to_string(b);
      boxes_.push_back(body(name.c_str()));
      box_sites_.push_back(site(name.c_str()));
      for (const char dim : {'x', 'y', 'z'}) box_joints_.push_back(id(mjOBJ_JOINT, (name + "_" + dim).c_str()));
    }
    for (int i = 0; i < m_->nsensor; ++i) touch_.push_back(m_->sensor_adr[i]);  // touch: every sensor
  }

 protected:
  void initialize_episode() override {
    mjModel* m = own_model();
    const int n = static_cast<int>(boxes_.size());
    do {
      draw_arm();
      const int64_t target_height = 2 * random().randint(0, n) + 1;
      const double box_size = m->geom_size[3 * target_geom_];
      m->body_pos[3 * target_ + 2] = box_size * static_cast<double>(target_height);
      m->body_pos[3 * target_] = random().uniform(-.37, .37);
      for (int b = 0; b < n; ++b) {  // x, z, then the angle y
        d_->qpos[m->jnt_qposadr[box_joints_[3 * b]]] = random().uniform(.1, .3);
        d_->qpos[m->jnt_qposadr[box_joints_[3 * b + 2]]] = random().uniform(0, .7);
        d_->qpos[m->jnt_qposadr[box_joints_[3 * b + 1]]] = random().uniform(0, 2 * npcompat::kPi);
      }
      forward_without_actuation();
    } while (d_->ncon > 0);
  }

  void observe(ObsWriter& w) const override {
    put_arm(w, touch_.data(), static_cast<int>(touch_.size()));
    if (!fully_observable_) return;
    put_pose(w, hand_);
    for (const int b : boxes_) put_pose(w, b);
    for (const int j : box_joints_) w.put(d_->qvel[m_->jnt_dofadr[j]]);
    put_pose(w, target_, false);
  }

  double reward() const override {
    const double box_size = m_->geom_size[3 * target_geom_];
    double min_distance = kInf;
    for (const int s : box_sites_) min_distance = std::min(min_distance, site_distance(s, target_site_));
    const double box_is_close = tolerance(min_distance, {.margin = 2 * box_size});
    const double hand_is_far = tolerance(site_distance(grasp_, target_site_), {.lower = .1, .upper = kInf, .margin = .01});
    return box_is_close * hand_is_far;
  }

 private:
  static int n_boxes(const DmcTask& t) { return t.task == "stack_2" ? 2 : 4; }

  bool fully_observable_;
  int hand_, target_, target_geom_, target_site_, grasp_;
  std::vector<int> boxes_, box_sites_, box_joints_, touch_;
};

}  // namespace envhive::dmc
