// dm_control's quadruped fetch (suite/quadruped.py, the Fetch task): reach a ball thrown into a
// walled arena and bring it to the target at the centre.
#pragma once

#include <cmath>

#include "quadruped_body.h"

namespace envhive::dmc {

class QuadrupedFetchEnv final : public QuadrupedBody {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    ObsLeaves leaves = common_observation(m);
    leaves.push_back({"ball_state", {9}});
    leaves.push_back({"target_position", {3}});
    return leaves;
  }

  QuadrupedFetchEnv(const Params& p, int env_id, const DmcTask&)
      : QuadrupedBody(p, env_id),
        ball_(body("ball")),
        ball_qpos_(joint_qpos("ball_root")),
        ball_dof_(joint_dof("ball_root")),
        root_dof_(joint_dof("root")),
        workspace_(id(mjOBJ_SITE, "workspace")),
        target_(id(mjOBJ_SITE, "target")),
        floor_(id(mjOBJ_GEOM, "floor")),
        ball_geom_(id(mjOBJ_GEOM, "ball")) {}

 protected:
  void initialize_episode() override {
    // a random azimuth and horizontal position
    const double azimuth = random().uniform(0, 2 * npcompat::kPi);
    const double orientation[4] = {npk::scalar(npk::Ufunc::kCos, azimuth / 2), 0, 0, npk::scalar(npk::Ufunc::kSin, azimuth / 2)};
    const double spawn_radius = 0.9 * m_->geom_size[3 * floor_];
    const double x = random().uniform(-spawn_radius, spawn_radius);
    const double y = random().uniform(-spawn_radius, spawn_radius);
    find_non_contacting_height(orientation, x, y);
    // the ball: somewhere on the floor, 2 m up, thrown horizontally
    d_->qpos[ball_qpos_] = random().uniform(-spawn_radius, spawn_radius);
    d_->qpos[ball_qpos_ + 1] = random().uniform(-spawn_radius, spawn_radius);
    d_->qpos[ball_qpos_ + 2] = 2;
    d_->qvel[ball_dof_] = 5 * random().standard_normal();
    d_->qvel[ball_dof_ + 1] = 5 * random().standard_normal();
  }

  void observe(ObsWriter& w) const override {
    put_common(w);
    // ball_state: vstack(relative position, relative velocity, angular velocity).dot(torso_frame)
    // (a 3 x 3 matrix times the frame: numpy's dgemm, not three dgemv)
    double rows[9], in_frame3[9];
    for (int k = 0; k < 3; ++k) {
      rows[k] = d_->xpos[3 * ball_ + k] - torso_pos()[k];
      rows[3 + k] = d_->qvel[ball_dof_ + k] - d_->qvel[root_dof_ + k];
      rows[6 + k] = d_->qvel[ball_dof_ + 3 + k];
    }
    npk::mat_mat(rows, d_->xmat + 9 * torso_, 3, 3, 3, in_frame3);
    w.put(in_frame3, 9);
    double to_target[3], in_frame[3];  // target_position
    for (int k = 0; k < 3; ++k) to_target[k] = d_->site_xpos[3 * target_ + k] - torso_pos()[k];
    in_torso_frame(to_target, in_frame);
    w.put(in_frame, 3);
  }

  double reward() const override {
    const double arena_radius = m_->geom_size[3 * floor_] * std::sqrt(2.0);
    const double workspace_radius = m_->site_size[3 * workspace_];
    const double ball_radius = m_->geom_size[3 * ball_geom_];
    const double reach = tolerance(horizontal_distance(d_->site_xpos + 3 * workspace_, d_->xpos + 3 * ball_),
                                   {.lower = 0,
                                    .upper = workspace_radius + ball_radius,
                                    .margin = arena_radius,
                                    .sigmoid = Sigmoid::kLinear,
                                    .value_at_margin = 0});
    const double target_radius = m_->site_size[3 * target_];
    const double fetch = tolerance(horizontal_distance(d_->site_xpos + 3 * target_, d_->xpos + 3 * ball_),
                                   {.lower = 0,
                                    .upper = target_radius,
                                    .margin = arena_radius,
                                    .sigmoid = Sigmoid::kLinear,
                                    .value_at_margin = 0});
    const double reach_then_fetch = reach * (0.5 + 0.5 * fetch);
    return upright_reward(1.0) * reach_then_fetch;
  }

 private:
  // np.linalg.norm((a - b)[:2])
  static double horizontal_distance(const double* a, const double* b) {
    const double v[2] = {a[0] - b[0], a[1] - b[1]};
    return npk::norm(v, 2);
  }

  int ball_, ball_qpos_, ball_dof_, root_dof_, workspace_, target_, floor_, ball_geom_;
};

}  // namespace envhive::dmc
