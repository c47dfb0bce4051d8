// Pendulum-v1: gymnasium.envs.classic_control.pendulum.PendulumEnv, step for step.
// State (th, thdot) is float64. The action is a float32 array, so after np.clip the torque `u` is
// an np.float32 and, under NEP 50, `u ** 2`, `0.001 * u**2` and `3.0 * u` are float32 operations
// (the Python float constants are cast to float32 first); they join the float64 terms afterwards.
// Its renderer draws `last_u` as an arrow: the env keeps it (None after reset, as Gymnasium's).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../../core/task.h"
#include "classic_spaces.h"
#include "../../core/numpy_compat.h"
#include "render/scenes.h"

namespace envhive::classic_control {

class PendulumEnv final : public Env {
 public:
  static constexpr double kMaxSpeed = 8;
  static constexpr double kMaxTorque = 2.0;
  static constexpr double kDt = 0.05;
  static constexpr double kM = 1.0;
  static constexpr double kL = 1.0;
  // The render image of the torque arrow (TaskMeta::render_images).
  static constexpr const char* kArrowImage = "classic_control/pendulum_arrow";

  static std::vector<ConfigField> config() { return {{"g", 10.0, "Acceleration of gravity."}}; }
  static Spaces spaces(const Config&) {
    return {symmetric_f32_box({1.0, 1.0, kMaxSpeed}),
            f32_box({-kMaxTorque}, {kMaxTorque}),
            {},
            {.height = kPendulumSize, .width = kPendulumSize, .fps = 30}};
  }
  PendulumEnv(const Config& c, int /*env_id*/) : g_(c.real("g")) {}

  void reset() override {
    // high = [pi, 1.0]; uniform(low=-high, high=high), element by element.
    th_ = rng().uniform(-npcompat::kPi, npcompat::kPi);
    thdot_ = rng().uniform(-1.0, 1.0);
    has_last_u_ = false;
  }

  StepResult step(const void* action) override {
    using npcompat::py_pow;
    using npcompat::py_powf;
    float a;
    std::memcpy(&a, action, sizeof(a));
    const double th = th_, thdot = thdot_;

    // np.clip(u, -2.0, 2.0)[0] on a float32 array stays float32.
    const float u = std::min(std::max(a, static_cast<float>(-kMaxTorque)), static_cast<float>(kMaxTorque));
    const float u_cost = static_cast<float>(0.001) * py_powf(u, 2.0f);
    const double costs = py_pow(angle_normalize(th), 2.0) + 0.1 * py_pow(thdot, 2.0) + static_cast<double>(u_cost);

    const double gravity_term = 3 * g_ / (2 * kL) * std::sin(th);
    const double inv_inertia = 3.0 / (kM * py_pow(kL, 2.0));
    const float torque_term = static_cast<float>(inv_inertia) * u;
    double newthdot = thdot + (gravity_term + static_cast<double>(torque_term)) * kDt;
    newthdot = std::min(std::max(newthdot, -kMaxSpeed), kMaxSpeed);
    const double newth = th + newthdot * kDt;

    th_ = newth;
    thdot_ = newthdot;
    last_u_ = u;
    has_last_u_ = true;
    return {-costs, false};
  }

  void write_obs(void* dst) const override {
    float* out = static_cast<float*>(dst);
    out[0] = static_cast<float>(std::cos(th_));
    out[1] = static_cast<float>(std::sin(th_));
    out[2] = static_cast<float>(thdot_);
  }

  void render(uint8_t* rgb, RenderSlot& slot) override {
    auto& arrows = slot.state<Arrows>([] { return std::make_unique<Arrows>(RenderImages::get().find(kArrowImage)); });
    draw_pendulum(rgb, th_, has_last_u_, last_u_, arrows.sizes);
  }

 private:
  // ((x + np.pi) % (2 * np.pi)) - np.pi
  static double angle_normalize(double x) { return npcompat::py_mod(x + npcompat::kPi, 2 * npcompat::kPi) - npcompat::kPi; }

  // A pool thread's arrow at every size it drew.
  struct Arrows final : RenderState {
    explicit Arrows(std::shared_ptr<const RgbaImage> arrow) : sizes(std::move(arrow)) {}
    ArrowSizes sizes;
  };

  double g_;
  double th_ = 0.0, thdot_ = 0.0;
  float last_u_ = 0.0f;      // the last step's clipped torque (np.float32)
  bool has_last_u_ = false;  // false: Gymnasium's last_u is None (after reset)
};

}  // namespace envhive::classic_control
