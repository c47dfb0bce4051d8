// MountainCarContinuous-v0: gymnasium.envs.classic_control.continuous_mountain_car, step for step.
//
// The dtypes in Gymnasium's step() change as an episode goes on, and they decide the rounding:
// - reset() stores a float64 array, every step() stores a float32 array, so the first step of an
//   episode computes in float64 and later steps in float32 (np.float32 combined with a Python
//   float stays float32 under NEP 50; the Python float is cast to float32 first).
// - force = min(max(action[0], -1.0), 1.0) is the np.float32 action when it is inside [-1, 1] but
//   the Python float bound when clipped, which makes `force * power` float32 or float64.
// - clipping velocity/position assigns Python floats, `velocity = 0` a Python int.
// - comparisons of an np.float32 with a Python float are made in float32.
// NpScalar (numpy_compat.h) tracks those types; the arithmetic below mirrors Gymnasium's lines.
#pragma once

#include <cmath>
#include <cstring>

#include "../../core/task.h"
#include "classic_spaces.h"
#include "../../core/numpy_compat.h"
#include "render/scenes.h"

namespace envhive::classic_control {

class MountainCarContinuousEnv final : public Env {
 public:
  static constexpr double kMinAction = -1.0;
  static constexpr double kMaxAction = 1.0;
  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.45;
  static constexpr double kPower = 0.0015;

  static std::vector<ConfigField> config() {
    return {{"goal_velocity", 0.0, "Minimum velocity at the goal position for the episode to end."}};
  }
  static Spaces spaces(const Config&) {
    return {f32_box({kMinPosition, -kMaxSpeed}, {kMaxPosition, kMaxSpeed}),
            f32_box({kMinAction}, {kMaxAction}),
            {},
            {.height = kMountainCarHeight, .width = kMountainCarWidth, .fps = 30}};
  }
  MountainCarContinuousEnv(const Config& c, int /*env_id*/) : goal_velocity_(c.real("goal_velocity")) {}

  void reset() override {
    // np.array([uniform(-0.6, -0.4), 0]): a float64 state.
    position_ = NpScalar::f64(rng().uniform(-0.6, -0.4));
    velocity_ = NpScalar::f64(0.0);
  }

  StepResult step(const void* action) override {
    float a0;
    std::memcpy(&a0, action, sizeof(a0));
    const NpScalar action0 = NpScalar::f32(a0);
    const NpScalar min_action = NpScalar::py(kMinAction), max_action = NpScalar::py(kMaxAction);

    NpScalar position = position_;
    NpScalar velocity = velocity_;
    // Python's max(a, b) keeps a unless b > a; min(a, b) keeps a unless b < a.
    NpScalar force = action0;
    if (min_action > force) force = min_action;
    if (max_action < force) force = max_action;

    // velocity += force * self.power - 0.0025 * math.cos(3 * position)
    const NpScalar three_pos = NpScalar::py(3) * position;
    const NpScalar gravity_term = NpScalar::py(0.0025 * std::cos(three_pos.as_f64()));  // Python float
    velocity = velocity + (force * NpScalar::py(kPower) - gravity_term);

    const NpScalar max_speed = NpScalar::py(kMaxSpeed), neg_max_speed = NpScalar::py(-kMaxSpeed);
    if (velocity > max_speed) velocity = max_speed;
    if (velocity < neg_max_speed) velocity = neg_max_speed;
    position = position + velocity;
    const NpScalar max_pos = NpScalar::py(kMaxPosition), min_pos = NpScalar::py(kMinPosition);
    if (position > max_pos) position = max_pos;
    if (position < min_pos) position = min_pos;
    if (position == min_pos && velocity < NpScalar::py(0)) velocity = NpScalar::py(0);

    const bool terminated =
        position >= NpScalar::py(kGoalPosition) && velocity >= NpScalar::py(goal_velocity_);

    double reward = 0;
    if (terminated) reward = 100.0;
    reward -= npcompat::py_pow(static_cast<double>(a0), 2.0) * 0.1;

    // self.state = np.array([position, velocity], dtype=np.float32)
    position_ = NpScalar::f32(static_cast<float>(position.as_f64()));
    velocity_ = NpScalar::f32(static_cast<float>(velocity.as_f64()));
    return {reward, terminated};
  }

  void write_obs(void* dst) const override {
    float* out = static_cast<float*>(dst);
    out[0] = static_cast<float>(position_.as_f64());
    out[1] = static_cast<float>(velocity_.as_f64());
  }

  // After a step the state is float32 and Gymnasium places the car in float32 arithmetic.
  void render(uint8_t* rgb, RenderSlot&) override {
    draw_mountain_car(rgb, position_.as_f64(), kGoalPosition, position_.is_f32());
  }

 private:
  using NpScalar = npcompat::NpScalar;

  double goal_velocity_;
  NpScalar position_ = NpScalar::f64(0.0), velocity_ = NpScalar::f64(0.0);
};

}  // namespace envhive::classic_control
