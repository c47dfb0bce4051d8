// Gymnasium-Robotics' Adroit hand tasks, v1 (adroit_hand/adroit_{door,hammer,pen,relocate}.py): the
// 24-DoF Adroit hand (30 actuators with the arm) on Gymnasium's MujocoEnv, actions in [-1, 1]
// mapped onto the actuators' control ranges, 5 physics steps a step, each reset moving the task's
// object (the door, the nail board, the target pen, the ball and its target) by changing the
// env's own model. Dense rewards (the ids without "Sparse") or 10 / -0.1; info "success".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "robot_env.h"

namespace envhive::robotics {

enum class AdroitTask { kDoor, kHammer, kPen, kRelocate };

// Each env's own copy of the task's model (the reference's env changes body_pos / site_pos /
// body_quat of its model at every reset), with the actuator gains and biases the reference sets.
struct AdroitModel {
  ModelPtr model;
  mjModel* mut = nullptr;  // the same model, for the resets' changes
};
AdroitModel adroit_model(AdroitTask task);

class AdroitEnv : public RobotEnv {
 public:
  static std::vector<ConfigField> config(AdroitTask task, bool dense);
  static Spaces spaces(const Config& c, AdroitTask task, bool dense);

  // MujocoEnv.reset: mj_resetData, then the task's reset_model.
  void reset() final;
  // a = act_mean + clip(a, -1, 1) * act_rng; ctrl = a; 5 x mj_step; mj_rnePostConstraint; the reward.
  StepResult step(const void* action) final;
  void write_obs(void* dst) const override = 0;
  void write_info(void* const* dst) const final { *static_cast<bool*>(dst[0]) = success_; }

 protected:
  AdroitEnv(const Config& c, AdroitModel model);
  // The task's random placement (changing its model), then set_state(init_qpos, init_qvel).
  virtual void reset_model() = 0;
  // The step's reward from the new state (success_ set too).
  virtual double evaluate() = 0;
  // Gymnasium's set_state of the initial qpos / qvel (qpos0 and zeros), with its mj_forward.
  void set_initial_state();
  const double* body_xpos(int body) const { return d_->xpos + 3 * body; }

  mjModel* mut_ = nullptr;
  bool dense_ = true;
  bool success_ = false;

 private:
  std::vector<double> act_mean_, act_rng_, ctrl_;
};

std::unique_ptr<Env> make_adroit(const Config& c, AdroitTask task);
// One per task file (adroit_door.cc, adroit_hammer.cc, adroit_pen.cc, adroit_relocate.cc).
std::unique_ptr<Env> make_adroit_door(const Config& c);
std::unique_ptr<Env> make_adroit_hammer(const Config& c);
std::unique_ptr<Env> make_adroit_pen(const Config& c);
std::unique_ptr<Env> make_adroit_relocate(const Config& c);

}  // namespace envhive::robotics

namespace envhive {

// Adroit's tasks share one class family; the registration names the task.
template <>
struct TaskTraits<robotics::AdroitEnv> {
  static std::vector<ConfigField> config(const robotics::AdroitTask& t, const bool& dense) {
    return robotics::AdroitEnv::config(t, dense);
  }
  static Spaces spaces(const Config& c, const robotics::AdroitTask& t, const bool& dense) {
    return robotics::AdroitEnv::spaces(c, t, dense);
  }
  static std::unique_ptr<Env> make(const Config& c, int /*env_id*/, const robotics::AdroitTask& t, const bool&) {
    return robotics::make_adroit(c, t);
  }
};

}  // namespace envhive
