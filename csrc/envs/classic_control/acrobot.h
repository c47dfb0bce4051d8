// Acrobot-v1: gymnasium.envs.classic_control.acrobot.AcrobotEnv (book_or_nips = "book",
// torque_noise_max = 0), step for step, with Gymnasium's rk4 / wrap / bound.
//
// reset() stores the state as float32 (uniform(...).astype(np.float32)); step() widens it to
// float64 (np.append with the Python-float torque) and rk4 returns float64, so the state is
// float64 from the first step on. The reset observation therefore applies NumPy's float32
// cos/sin loops (npk::scalar_f32: numpy's own, SIMD or not by CPU), all later ones float64 cos/sin,
// which are glibc's in NumPy 2.x. `x ** 2` on float64 scalars is glibc pow (py_pow), not x * x.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../core/task.h"
#include "classic_spaces.h"
#include "../../core/numpy_compat.h"
#include "../../core/numpy_kernels.h"
#include "render/scenes.h"

namespace envhive::classic_control {

class AcrobotEnv final : public Env {
 public:
  static constexpr double kDt = 0.2;
  static constexpr double kLinkLength1 = 1.0;
  static constexpr double kLinkMass1 = 1.0;
  static constexpr double kLinkMass2 = 1.0;
  static constexpr double kLinkComPos1 = 0.5;
  static constexpr double kLinkComPos2 = 0.5;
  static constexpr double kLinkMoi = 1.0;
  static constexpr double kMaxVel1 = 4 * npcompat::kPi;
  static constexpr double kMaxVel2 = 9 * npcompat::kPi;
  static constexpr double kAvailTorque[3] = {-1.0, 0.0, +1};

  static std::vector<ConfigField> config() { return {}; }
  static Spaces spaces(const Config&) {
    return {symmetric_f32_box({1.0, 1.0, 1.0, 1.0, kMaxVel1, kMaxVel2}),
            SpaceSpec::discrete(3),
            {},
            {.height = kAcrobotSize, .width = kAcrobotSize, .fps = 15}};
  }
  AcrobotEnv(const Config&, int /*env_id*/) {}

  void reset() override {
    for (float& v : state_f32_) v = static_cast<float>(rng().uniform(-0.1, 0.1));
    state_is_f32_ = true;
  }

  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    if (a < 0 || a >= 3) throw std::out_of_range("action " + std::to_string(a) + " is not in Discrete(3)");
    const double torque = kAvailTorque[a];
    // s_augmented = np.append(s, torque): float64 in every case.
    double s_augmented[5];
    for (int i = 0; i < 4; ++i) s_augmented[i] = state_is_f32_ ? static_cast<double>(state_f32_[i]) : state_[i];
    s_augmented[4] = torque;

    double ns[4];
    rk4(s_augmented, ns);

    ns[0] = wrap(ns[0], -npcompat::kPi, npcompat::kPi);
    ns[1] = wrap(ns[1], -npcompat::kPi, npcompat::kPi);
    ns[2] = bound(ns[2], -kMaxVel1, kMaxVel1);
    ns[3] = bound(ns[3], -kMaxVel2, kMaxVel2);
    for (int i = 0; i < 4; ++i) state_[i] = ns[i];
    state_is_f32_ = false;

    const bool terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
    const double reward = !terminated ? -1.0 : 0.0;
    return {reward, terminated};
  }

  void write_obs(void* dst) const override {
    float* out = static_cast<float*>(dst);
    if (state_is_f32_) {
      const float s0 = state_f32_[0], s1 = state_f32_[1];
      out[0] = npk::scalar_f32(npk::Ufunc::kCosF32, s0);
      out[1] = npk::scalar_f32(npk::Ufunc::kSinF32, s0);
      out[2] = npk::scalar_f32(npk::Ufunc::kCosF32, s1);
      out[3] = npk::scalar_f32(npk::Ufunc::kSinF32, s1);
    } else {
      out[0] = static_cast<float>(std::cos(state_[0]));
      out[1] = static_cast<float>(std::sin(state_[0]));
      out[2] = static_cast<float>(std::cos(state_[1]));
      out[3] = static_cast<float>(std::sin(state_[1]));
    }
    out[4] = state_is_f32_ ? state_f32_[2] : static_cast<float>(state_[2]);
    out[5] = state_is_f32_ ? state_f32_[3] : static_cast<float>(state_[3]);
  }

  void render(uint8_t* rgb, RenderSlot&) override {
    double s[4];
    for (int i = 0; i < 4; ++i) s[i] = state_is_f32_ ? static_cast<double>(state_f32_[i]) : state_[i];
    draw_acrobot(rgb, s, state_is_f32_);
  }

 private:
  // AcrobotEnv._dsdt for book_or_nips == "book"; same operand order as Gymnasium.
  static void dsdt(const double s_augmented[5], double out[5]) {
    using npcompat::kPi;
    using npcompat::py_pow;
    const double m1 = kLinkMass1;
    const double m2 = kLinkMass2;
    const double l1 = kLinkLength1;
    const double lc1 = kLinkComPos1;
    const double lc2 = kLinkComPos2;
    const double I1 = kLinkMoi;
    const double I2 = kLinkMoi;
    const double g = 9.8;
    const double a = s_augmented[4];
    const double theta1 = s_augmented[0];
    const double theta2 = s_augmented[1];
    const double dtheta1 = s_augmented[2];
    const double dtheta2 = s_augmented[3];
    const double d1 = m1 * py_pow(lc1, 2) + m2 * (py_pow(l1, 2) + py_pow(lc2, 2) + 2 * l1 * lc2 * std::cos(theta2)) + I1 + I2;
    const double d2 = m2 * (py_pow(lc2, 2) + l1 * lc2 * std::cos(theta2)) + I2;
    const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - kPi / 2.0);
    const double phi1 = -m2 * l1 * lc2 * py_pow(dtheta2, 2) * std::sin(theta2) -
                        2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                        (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - kPi / 2) + phi2;
    const double ddtheta2 =
        (a + d2 / d1 * phi1 - m2 * l1 * lc2 * py_pow(dtheta1, 2) * std::sin(theta2) - phi2) /
        (m2 * py_pow(lc2, 2) + I2 - py_pow(d2, 2) / d1);
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
    out[4] = 0.0;
  }

  // Gymnasium's rk4(derivs, y0, [0, dt]), returning yout[-1][:4].
  static void rk4(const double y0[5], double out[4]) {
    const double dt = kDt - 0;
    const double dt2 = dt / 2.0;
    double k1[5], k2[5], k3[5], k4[5], y[5];
    dsdt(y0, k1);
    for (int j = 0; j < 5; ++j) y[j] = y0[j] + dt2 * k1[j];
    dsdt(y, k2);
    for (int j = 0; j < 5; ++j) y[j] = y0[j] + dt2 * k2[j];
    dsdt(y, k3);
    for (int j = 0; j < 5; ++j) y[j] = y0[j] + dt * k3[j];
    dsdt(y, k4);
    const double dt6 = dt / 6.0;
    for (int j = 0; j < 4; ++j) out[j] = y0[j] + dt6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
  }

  static double wrap(double x, double m, double M) {
    const double diff = M - m;
    while (x > M) x = x - diff;
    while (x < m) x = x + diff;
    return x;
  }

  // min(max(x, m), M) with Python's builtins: max keeps x unless m > x, min keeps it unless M < it.
  static double bound(double x, double m, double M) {
    double r = x;
    if (m > r) r = m;
    if (M < r) r = M;
    return r;
  }

  // The state after reset() is a float32 array, after step() a float64 one. The float32 values
  // live in their own float array: GCC 12's SLP vectorizer can drop a double -> float -> double
  // round trip stored into adjacent doubles, which would keep the unrounded draws.
  float state_f32_[4] = {0, 0, 0, 0};
  double state_[4] = {0, 0, 0, 0};
  bool state_is_f32_ = true;
};

}  // namespace envhive::classic_control
