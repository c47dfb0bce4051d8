// AdroitHandRelocate-v1 / AdroitHandRelocateSparse-v1 (adroit_hand/adroit_relocate.py): move a ball,
// placed at random at each reset, to a random target.
#include <cstring>

#include "adroit.h"

namespace envhive::robotics {

namespace {

class AdroitRelocateEnv final : public AdroitEnv {
 public:
  explicit AdroitRelocateEnv(const Config& c) : AdroitEnv(c, adroit_model(AdroitTask::kRelocate)) {
    target_ = name_id(m_, mjOBJ_SITE, "target");
    grasp_ = name_id(m_, mjOBJ_SITE, "S_grasp");
    object_ = name_id(m_, mjOBJ_BODY, "Object");
  }

  void write_obs(void* dst) const override {
    double* o = static_cast<double*>(dst);
    const int nq = m_->nq;
    std::memcpy(o, d_->qpos, sizeof(double) * static_cast<size_t>(nq - 6));
    o += nq - 6;
    const double* obj = body_xpos(object_);
    const double* palm = site_xpos(grasp_);
    const double* target = site_xpos(target_);
    for (int k = 0; k < 3; ++k) *o++ = palm[k] - obj[k];
    for (int k = 0; k < 3; ++k) *o++ = palm[k] - target[k];
    for (int k = 0; k < 3; ++k) *o++ = obj[k] - target[k];
  }

 protected:
  void reset_model() override {
    double* obj = mut_->body_pos + 3 * object_;
    obj[0] = rng().uniform(-0.15, 0.15);
    obj[1] = rng().uniform(-0.15, 0.3);
    double* target = mut_->site_pos + 3 * target_;
    target[0] = rng().uniform(-0.2, 0.2);
    target[1] = rng().uniform(-0.2, 0.2);
    target[2] = rng().uniform(0.15, 0.35);
    set_initial_state();
  }

  double evaluate() override {
    const double* obj = body_xpos(object_);
    const double* palm = site_xpos(grasp_);
    const double* target = site_xpos(target_);
    const auto norm_of = [](const double* a, const double* b) {
      const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
      return numerics::blas_norm(d, 3);
    };
    const double goal_distance = norm_of(obj, target);
    success_ = goal_distance < 0.1;
    if (!dense_) return success_ ? 10.0 : -0.1;
    double reward = 0.1 * norm_of(palm, obj);
    if (obj[2] > 0.04) {
      reward += 1.0;
      reward += -0.5 * norm_of(palm, target);
      reward += -0.5 * norm_of(obj, target);
    }
    if (goal_distance < 0.1) reward += 10.0;
    if (goal_distance < 0.05) reward += 20.0;
    return reward;
  }

 private:
  int target_ = 0, grasp_ = 0, object_ = 0;
};

}  // namespace

std::unique_ptr<Env> make_adroit_relocate(const Config& c) { return std::make_unique<AdroitRelocateEnv>(c); }

}  // namespace envhive::robotics
