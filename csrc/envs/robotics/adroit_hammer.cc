// AdroitHandHammer-v1 / AdroitHandHammerSparse-v1 (adroit_hand/adroit_hammer.py): drive a nail into
// a board set at a random height at each reset.
#include <cstring>

#include "adroit.h"
#include "rotations.h"

namespace envhive::robotics {

namespace {

class AdroitHammerEnv final : public AdroitEnv {
 public:
  explicit AdroitHammerEnv(const Config& c) : AdroitEnv(c, adroit_model(AdroitTask::kHammer)) {
    target_ = name_id(m_, mjOBJ_SITE, "S_target");
    grasp_ = name_id(m_, mjOBJ_SITE, "S_grasp");
    object_ = name_id(m_, mjOBJ_BODY, "Object");
    tool_ = name_id(m_, mjOBJ_SITE, "tool");
    goal_ = name_id(m_, mjOBJ_SITE, "nail_goal");
    board_ = name_id(m_, mjOBJ_BODY, "nail_board");
    nail_sensor_ = name_id(m_, mjOBJ_SENSOR, "S_nail");
  }

  void write_obs(void* dst) const override {
    double* o = static_cast<double*>(dst);
    const int nq = m_->nq, nv = m_->nv;
    std::memcpy(o, d_->qpos, sizeof(double) * static_cast<size_t>(nq - 6));  // qp[:-6]
    o += nq - 6;
    for (int k = nv - 6; k < nv; ++k) *o++ = mujoco::np_clip(d_->qvel[k], -1.0, 1.0);  // clip(qv)[-6:]
    const double* palm = site_xpos(grasp_);
    const double* obj = body_xpos(object_);
    for (int k = 0; k < 3; ++k) *o++ = palm[k];
    for (int k = 0; k < 3; ++k) *o++ = obj[k];
    rotations::quat2euler(d_->xquat + 4 * object_, o);
    o += 3;
    const double* target = site_xpos(target_);
    for (int k = 0; k < 3; ++k) *o++ = target[k];
    *o = mujoco::np_clip(d_->sensordata[nail_sensor_], -1.0, 1.0);  // the reference indexes by sensor id
  }

 protected:
  void reset_model() override {
    mut_->body_pos[3 * board_ + 2] = rng().uniform(0.1, 0.25);
    set_initial_state();
  }

  double evaluate() override {
    const double* hammer = body_xpos(object_);
    const double* palm = site_xpos(grasp_);
    const double* head = site_xpos(tool_);
    const double* nail = site_xpos(target_);
    const double* goal = site_xpos(goal_);
    const auto norm_of = [](const double* a, const double* b) {
      const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
      return numerics::blas_norm(d, 3);
    };
    const double goal_distance = norm_of(nail, goal);
    success_ = goal_distance < 0.01;
    if (!dense_) return success_ ? 10.0 : -0.1;
    double reward = 0.1 * norm_of(palm, hammer);
    reward -= norm_of(head, nail);
    reward -= 10 * norm_of(nail, goal);
    reward -= 1e-2 * numerics::blas_norm(d_->qvel, m_->nv);
    if (hammer[2] > 0.04 && head[2] > 0.04) reward += 2;
    if (goal_distance < 0.020) reward += 25;
    if (goal_distance < 0.010) reward += 75;
    return reward;
  }

 private:
  int target_ = 0, grasp_ = 0, object_ = 0, tool_ = 0, goal_ = 0, board_ = 0, nail_sensor_ = 0;
};

}  // namespace

std::unique_ptr<Env> make_adroit_hammer(const Config& c) { return std::make_unique<AdroitHammerEnv>(c); }

}  // namespace envhive::robotics
