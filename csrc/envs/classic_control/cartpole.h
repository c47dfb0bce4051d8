// CartPole-v0 / CartPole-v1: gymnasium.envs.classic_control.cartpole.CartPoleEnv, step for step.
// State is float64 (as in Gymnasium); the observation is its float32 cast. Every expression keeps
// Gymnasium's operand order; np.cos/np.sin/np.square on float64 scalars are glibc cos/sin and x*x.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../core/task.h"
#include "classic_spaces.h"
#include "../../core/numpy_compat.h"
#include "render/scenes.h"

namespace envhive::classic_control {

class CartPoleEnv final : public Env {
 public:
  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart;
  static constexpr double kLength = 0.5;  // half the pole's length
  static constexpr double kPoleMassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kTau = 0.02;
  // 12 * 2 * math.pi / 360, evaluated left to right like Python.
  static constexpr double kThetaThreshold = 12 * 2 * npcompat::kPi / 360;
  static constexpr double kXThreshold = 2.4;

  static std::vector<ConfigField> config() {
    return {{"sutton_barto_reward", false,
             "Reward 0 per non-terminal step and -1 on termination instead of +1 per step."}};
  }
  static Spaces spaces(const Config&) {
    return {symmetric_f32_box({kXThreshold * 2, npcompat::kInf, kThetaThreshold * 2, npcompat::kInf}),
            SpaceSpec::discrete(2),
            {},
            {.height = kCartPoleHeight, .width = kCartPoleWidth, .fps = 50}};
  }
  CartPoleEnv(const Config& c, int /*env_id*/) : sutton_barto_reward_(c.flag("sutton_barto_reward")) {}

  void reset() override {
    for (double& v : state_) v = rng().uniform(-0.05, 0.05);
    steps_beyond_terminated_ = -1;
  }

  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    if (a < 0 || a >= 2) throw std::out_of_range("action " + std::to_string(a) + " is not in Discrete(2)");
    double x = state_[0], x_dot = state_[1], theta = state_[2], theta_dot = state_[3];
    const double force = a == 1 ? kForceMag : -kForceMag;
    const double costheta = std::cos(theta);
    const double sintheta = std::sin(theta);

    const double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    const double thetaacc = (kGravity * sintheta - costheta * temp) /
                            (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;

    // kinematics_integrator == "euler"
    x = x + kTau * x_dot;
    x_dot = x_dot + kTau * xacc;
    theta = theta + kTau * theta_dot;
    theta_dot = theta_dot + kTau * thetaacc;
    state_[0] = x;
    state_[1] = x_dot;
    state_[2] = theta;
    state_[3] = theta_dot;

    const bool terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold ||
                            theta > kThetaThreshold;
    double reward;
    if (!terminated) {
      reward = sutton_barto_reward_ ? 0.0 : 1.0;
    } else if (steps_beyond_terminated_ < 0) {
      steps_beyond_terminated_ = 0;
      reward = sutton_barto_reward_ ? -1.0 : 1.0;
    } else {
      // Stepping past termination (undefined behaviour in Gymnasium, reproduced anyway).
      ++steps_beyond_terminated_;
      reward = sutton_barto_reward_ ? -1.0 : 0.0;
    }
    return {reward, terminated};
  }

  void write_obs(void* dst) const override {
    float* out = static_cast<float*>(dst);
    for (int i = 0; i < 4; ++i) out[i] = static_cast<float>(state_[i]);
  }

  void render(uint8_t* rgb, RenderSlot&) override { draw_cartpole(rgb, state_); }

 private:
  bool sutton_barto_reward_;
  double state_[4] = {0, 0, 0, 0};
  int64_t steps_beyond_terminated_ = -1;  // -1: None
};

}  // namespace envhive::classic_control
