// AdroitHandPen-v1 / AdroitHandPenSparse-v1 (adroit_hand/adroit_pen.py): turn a pen in the hand to a
// target orientation drawn at each reset.
#include <cstring>

#include "adroit.h"
#include "rotations.h"

namespace envhive::robotics {

namespace {

class AdroitPenEnv final : public AdroitEnv {
 public:
  explicit AdroitPenEnv(const Config& c) : AdroitEnv(c, adroit_model(AdroitTask::kPen)) {
    target_body_ = name_id(m_, mjOBJ_BODY, "target");
    object_ = name_id(m_, mjOBJ_BODY, "Object");
    eps_ball_ = name_id(m_, mjOBJ_SITE, "eps_ball");
    obj_top_ = name_id(m_, mjOBJ_SITE, "object_top");
    obj_bottom_ = name_id(m_, mjOBJ_SITE, "object_bottom");
    tar_top_ = name_id(m_, mjOBJ_SITE, "target_top");
    tar_bottom_ = name_id(m_, mjOBJ_SITE, "target_bottom");
  }

  void write_obs(void* dst) const override {
    double* o = static_cast<double*>(dst);
    const int nq = m_->nq, nv = m_->nv;
    std::memcpy(o, d_->qpos, sizeof(double) * static_cast<size_t>(nq - 6));
    o += nq - 6;
    const double* obj = body_xpos(object_);
    const double* desired = site_xpos(eps_ball_);
    double obj_orien[3], desired_orien[3];
    orientations(obj_orien, desired_orien);
    for (int k = 0; k < 3; ++k) *o++ = obj[k];
    for (int k = nv - 6; k < nv; ++k) *o++ = d_->qvel[k];
    for (int k = 0; k < 3; ++k) *o++ = obj_orien[k];
    for (int k = 0; k < 3; ++k) *o++ = desired_orien[k];
    for (int k = 0; k < 3; ++k) *o++ = obj[k] - desired[k];
    for (int k = 0; k < 3; ++k) *o++ = obj_orien[k] - desired_orien[k];
  }

 protected:
  void reset_model() override {
    double euler[3] = {0.0, 0.0, 0.0};
    euler[0] = rng().uniform(-1, 1);
    euler[1] = rng().uniform(-1, 1);
    rotations::euler2quat(euler, mut_->body_quat + 4 * target_body_);
    set_initial_state();
    pen_length_ = length(obj_top_, obj_bottom_);
    tar_length_ = length(tar_top_, tar_bottom_);
  }

  double evaluate() override {
    const double* obj = body_xpos(object_);
    const double* desired = site_xpos(eps_ball_);
    double obj_orien[3], desired_orien[3];
    orientations(obj_orien, desired_orien);
    const double diff[3] = {obj[0] - desired[0], obj[1] - desired[1], obj[2] - desired[2]};
    const double goal_distance = numerics::blas_norm(diff, 3);
    const double similarity = numerics::blas_dot(obj_orien, desired_orien, 3);
    success_ = goal_distance < 0.075 && similarity > 0.95;
    if (!dense_) return success_ ? 10.0 : -0.1;
    double reward = -goal_distance + similarity;
    if (goal_distance < 0.075 && similarity > 0.9) reward += 10;
    if (goal_distance < 0.075 && similarity > 0.95) reward += 50;
    if (obj[2] < 0.075) reward -= 5;
    return reward;
  }

 private:
  // (top - bottom) / length of the pen and of the target, the lengths measured at the reset.
  void orientations(double obj[3], double target[3]) const {
    for (int k = 0; k < 3; ++k) {
      obj[k] = (site_xpos(obj_top_)[k] - site_xpos(obj_bottom_)[k]) / pen_length_;
      target[k] = (site_xpos(tar_top_)[k] - site_xpos(tar_bottom_)[k]) / tar_length_;
    }
  }
  double length(int top, int bottom) const {
    const double d[3] = {site_xpos(top)[0] - site_xpos(bottom)[0], site_xpos(top)[1] - site_xpos(bottom)[1],
                         site_xpos(top)[2] - site_xpos(bottom)[2]};
    return numerics::blas_norm(d, 3);
  }
  double pen_length_ = 1.0, tar_length_ = 1.0;
  int target_body_ = 0, object_ = 0, eps_ball_ = 0, obj_top_ = 0, obj_bottom_ = 0, tar_top_ = 0, tar_bottom_ = 0;
};

}  // namespace

std::unique_ptr<Env> make_adroit_pen(const Config& c) { return std::make_unique<AdroitPenEnv>(c); }

}  // namespace envhive::robotics
