// dm_control's dog fetch (suite/dog.py, the Fetch task): a ball is thrown towards the dog, which is
// rewarded for standing, reaching the ball with its mouth and bringing it to the target.
#pragma once

#include <cmath>

#include "dog_body.h"

namespace envhive::dmc {

class DogFetchEnv final : public DogBody {
 public:
  static ObsLeaves observation(const mjModel& m, const Params&) {
    ObsLeaves leaves = common_observation(m);
    leaves.push_back({"ball_state", {6}});
    leaves.push_back({"target_position", {3}});
    return leaves;
  }

  DogFetchEnv(const Params& p, int env_id, const DmcTask&)
      : DogBody(p, env_id),
        ball_qpos_(joint_qpos("ball_root")),
        ball_dof_(joint_dof("ball_root")),
        ball_(id(mjOBJ_GEOM, "ball")),
        target_(id(mjOBJ_GEOM, "target")),
        floor_(id(mjOBJ_GEOM, "floor")),
        head_(id(mjOBJ_SITE, "head")),
        upper_bite_(id(mjOBJ_SITE, "upper_bite")),
        lower_bite_(id(mjOBJ_SITE, "lower_bite")) {}

 protected:
  void initialize_episode() override {
    DogBody::initialize_episode();
    // the ball: flying towards the centre at an upward angle
    const double radius = 0.75 * m_->geom_size[3 * floor_];
    const double azimuth = random().uniform(0, 2 * npcompat::kPi);
    d_->qpos[ball_qpos_] = radius * npk::scalar(npk::Ufunc::kSin, azimuth);
    d_->qpos[ball_qpos_ + 1] = radius * npk::scalar(npk::Ufunc::kCos, azimuth);
    d_->qpos[ball_qpos_ + 2] = 0.05;
    const double vertical_height = random().uniform(0, 3);
    const double gravity = -m_->opt.gravity[2];
    const double vertical_velocity = std::sqrt(2 * gravity * vertical_height);
    const double horizontal_speed = random().uniform(0, 5);
    const double direction_x = -npk::scalar(npk::Ufunc::kSin, azimuth) + 0.05 * random().standard_normal();
    const double direction_y = -npk::scalar(npk::Ufunc::kCos, azimuth) + 0.05 * random().standard_normal();
    d_->qvel[ball_dof_] = horizontal_speed * direction_x;
    d_->qvel[ball_dof_ + 1] = horizontal_speed * direction_y;
    d_->qvel[ball_dof_ + 2] = vertical_velocity;
  }

  void observe(ObsWriter& w) const override {
    put_common(w);
    const double* head_frame = d_->site_xmat + 9 * head_;
    const double* head_pos = d_->site_xpos + 3 * head_;
    // ball_state: the ball's position and velocity relative to the head, in the head's frame
    double head_velocity[6], ball_velocity[6];  // mj_objectVelocity: (angular, linear), world frame
    mj_objectVelocity(m_, d_, mjOBJ_SITE, head_, head_velocity, 0);
    mj_objectVelocity(m_, d_, mjOBJ_GEOM, ball_, ball_velocity, 0);
    double to_ball[3], to_ball_velocity[3], in_frame[3];
    for (int k = 0; k < 3; ++k) {
      to_ball[k] = d_->geom_xpos[3 * ball_ + k] - head_pos[k];
      to_ball_velocity[k] = ball_velocity[3 + k] - head_velocity[3 + k];
    }
    npk::vec_mat(to_ball, head_frame, 3, 3, in_frame);
    w.put(in_frame, 3);
    npk::vec_mat(to_ball_velocity, head_frame, 3, 3, in_frame);
    w.put(in_frame, 3);
    double to_target[3];  // target_position
    for (int k = 0; k < 3; ++k) to_target[k] = d_->geom_xpos[3 * target_ + k] - head_pos[k];
    npk::vec_mat(to_target, head_frame, 3, 3, in_frame);
    w.put(in_frame, 3);
  }

  double reward() const override {
    double product = standing_product();
    // reaching the ball with the mouth
    const double* ball = d_->geom_xpos + 3 * ball_;
    const double bite_radius = m_->site_size[3 * upper_bite_];
    const double mouth_distance = 0.5 * (distance(ball, d_->site_xpos + 3 * upper_bite_) +
                                         distance(ball, d_->site_xpos + 3 * lower_bite_));
    double reach_ball = tolerance(mouth_distance, {.lower = 0, .upper = bite_radius, .margin = 2, .sigmoid = Sigmoid::kReciprocal});
    reach_ball = (6 * reach_ball + 1) / 7;
    // bringing the ball to the target
    const double target_radius = m_->geom_size[3 * target_];
    const double target_distance = distance(ball, d_->geom_xpos + 3 * target_);
    const double near_target = tolerance(target_distance, {.lower = 0,
                                                           .upper = target_radius,
                                                           .margin = m_->geom_size[3 * floor_],
                                                           .sigmoid = Sigmoid::kReciprocal});
    const double fetch_ball = (near_target + 1) / 2;
    if (target_distance < 2 * target_radius) reach_ball = 1;  // let go of a fetched ball
    product *= reach_ball;
    product *= fetch_ball;
    return product;
  }

 private:
  // np.linalg.norm(a - b) of 3-vectors
  static double distance(const double* a, const double* b) {
    const double v[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return npk::norm(v, 3);
  }

  int ball_qpos_, ball_dof_, ball_, target_, floor_, head_, upper_bite_, lower_bite_;
};

}  // namespace envhive::dmc
