// AdroitHandDoor-v1 / AdroitHandDoorSparse-v1 (adroit_hand/adroit_door.py): open a door whose frame
// is placed at random at each reset, by its latch and hinge.
#include <cstring>

#include "adroit.h"

namespace envhive::robotics {

namespace {

class AdroitDoorEnv final : public AdroitEnv {
 public:
  explicit AdroitDoorEnv(const Config& c) : AdroitEnv(c, adroit_model(AdroitTask::kDoor)) {
    door_hinge_ = m_->jnt_dofadr[name_id(m_, mjOBJ_JOINT, "door_hinge")];
    grasp_ = name_id(m_, mjOBJ_SITE, "S_grasp");
    handle_ = name_id(m_, mjOBJ_SITE, "S_handle");
    frame_ = name_id(m_, mjOBJ_BODY, "frame");
  }

  void write_obs(void* dst) const override {
    double* o = static_cast<double*>(dst);
    const int nq = m_->nq;
    const double* q = d_->qpos;
    const double* handle = site_xpos(handle_);
    const double* palm = site_xpos(grasp_);
    const double door = q[door_hinge_];  // the reference indexes qpos by the hinge's dof address
    std::memcpy(o, q + 1, sizeof(double) * static_cast<size_t>(nq - 3));  // qpos[1:-2]
    o += nq - 3;
    *o++ = q[nq - 1];  // latch
    *o++ = door;
    for (int k = 0; k < 3; ++k) o[k] = palm[k];
    for (int k = 0; k < 3; ++k) o[3 + k] = handle[k];
    for (int k = 0; k < 3; ++k) o[6 + k] = palm[k] - handle[k];
    o[9] = door > 1.0 ? 1.0 : -1.0;
  }

 protected:
  void reset_model() override {
    double* pos = mut_->body_pos + 3 * frame_;
    pos[0] = rng().uniform(-0.3, -0.2);
    pos[1] = rng().uniform(0.25, 0.35);
    pos[2] = rng().uniform(0.252, 0.35);
    set_initial_state();
  }

  double evaluate() override {
    const double goal_distance = d_->qpos[door_hinge_];
    success_ = goal_distance >= 1.35;
    if (!dense_) return success_ ? 10.0 : -0.1;
    const double* handle = site_xpos(handle_);
    const double* palm = site_xpos(grasp_);
    const double diff[3] = {palm[0] - handle[0], palm[1] - handle[1], palm[2] - handle[2]};
    double reward = 0.1 * numerics::blas_norm(diff, 3);
    reward += -0.1 * (goal_distance - 1.57) * (goal_distance - 1.57);
    reward += -1e-5 * mujoco::np_sum_squares(d_->qvel, static_cast<size_t>(m_->nv));
    if (goal_distance > 0.2) reward += 2;
    if (goal_distance > 1.0) reward += 8;
    if (goal_distance > 1.35) reward += 10;
    return reward;
  }

 private:
  int door_hinge_ = 0, grasp_ = 0, handle_ = 0, frame_ = 0;
};

}  // namespace

std::unique_ptr<Env> make_adroit_door(const Config& c) { return std::make_unique<AdroitDoorEnv>(c); }

}  // namespace envhive::robotics
