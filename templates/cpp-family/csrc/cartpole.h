// mypkg/CartPole-v1: Gymnasium's CartPole-v1, step for step (tests/test_cartpole.py checks it).
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/task.h"

namespace mypkg {
using namespace envhive;

class CartPole final : public Env {
 public:
  static constexpr double kTau = 0.02, kXLimit = 2.4, kThetaLimit = 12 * 2 * 3.141592653589793 / 360;

  static std::vector<ConfigField> config() {
    return {{"sutton_barto_reward", false, "Reward 0 per step and -1 on termination instead of +1 per step."}};
  }
  static Spaces spaces(const Config&) {  // Gymnasium declares float32 bounds: round them as it does
    const auto high = std::vector<double>{float(kXLimit * 2), INFINITY, float(kThetaLimit * 2), INFINITY};
    return {SpaceSpec::box(DType::kFloat32, {4}, {-high[0], -INFINITY, -high[2], -INFINITY}, high),
            SpaceSpec::discrete(2), {}};
  }
  CartPole(const Config& c, int /*env_id*/) : sutton_barto_(c.flag("sutton_barto_reward")) {}

  // reset(options={"low": l, "high": h}) draws the next start state from U(l, h), as Gymnasium's does.
  void set_reset_option(const std::string& name, const std::vector<double>& v) override {
    if (v.size() != 1) throw std::invalid_argument("reset option " + name + " takes one value per env");
    (name == "low" ? low_ : high_) = v[0];
  }
  void reset() override {
    const double low = low_, high = high_;
    low_ = -0.05, high_ = 0.05;  // the options hold for this reset only
    if (low > high) throw std::invalid_argument("reset option low (" + std::to_string(low) + ") > high");
    for (double& v : s_) v = rng().uniform(low, high);
  }
  StepResult step(const void* action) override {  // Gymnasium's Euler step, in its operand order
    const double force = *static_cast<const int64_t*>(action) == 1 ? 10.0 : -10.0;
    const double cos_t = std::cos(s_[2]), sin_t = std::sin(s_[2]);
    const double temp = (force + 0.05 * (s_[3] * s_[3]) * sin_t) / 1.1;
    const double theta_acc = (9.8 * sin_t - cos_t * temp) / (0.5 * (4.0 / 3.0 - 0.1 * (cos_t * cos_t) / 1.1));
    const double x_acc = temp - 0.05 * theta_acc * cos_t / 1.1;
    s_[0] += kTau * s_[1], s_[1] += kTau * x_acc, s_[2] += kTau * s_[3], s_[3] += kTau * theta_acc;
    const bool done = s_[0] < -kXLimit || s_[0] > kXLimit || s_[2] < -kThetaLimit || s_[2] > kThetaLimit;
    return {sutton_barto_ ? (done ? -1.0 : 0.0) : 1.0, done};
  }
  void write_obs(void* dst) const override {
    for (int i = 0; i < 4; ++i) static_cast<float*>(dst)[i] = static_cast<float>(s_[i]);
  }

 private:
  bool sutton_barto_;
  double low_ = -0.05, high_ = 0.05, s_[4] = {};
};

}  // namespace mypkg
