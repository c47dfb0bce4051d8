// MountainCar-v0: gymnasium.envs.classic_control.mountain_car.MountainCarEnv, step for step.
// Here the whole state stays float64 (reset builds a float64 array, step keeps np.float64 / Python
// float scalars in a tuple); only the observation is cast to float32. math.cos is glibc cos.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../core/task.h"
#include "classic_spaces.h"
#include "render/scenes.h"

namespace envhive::classic_control {

class MountainCarEnv final : public Env {
 public:
  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.5;
  static constexpr double kForce = 0.001;
  static constexpr double kGravity = 0.0025;

  static std::vector<ConfigField> config() {
    return {{"goal_velocity", 0.0, "Minimum velocity at the goal position for the episode to end."}};
  }
  static Spaces spaces(const Config&) {
    return {f32_box({kMinPosition, -kMaxSpeed}, {kMaxPosition, kMaxSpeed}),
            SpaceSpec::discrete(3),
            {},
            {.height = kMountainCarHeight, .width = kMountainCarWidth, .fps = 30}};
  }
  MountainCarEnv(const Config& c, int /*env_id*/) : goal_velocity_(c.real("goal_velocity")) {}

  void reset() override {
    position_ = rng().uniform(-0.6, -0.4);
    velocity_ = 0.0;
  }

  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    if (a < 0 || a >= 3) throw std::out_of_range("action " + std::to_string(a) + " is not in Discrete(3)");
    double position = position_, velocity = velocity_;
    velocity += static_cast<double>(a - 1) * kForce + std::cos(3 * position) * (-kGravity);
    velocity = std::min(std::max(velocity, -kMaxSpeed), kMaxSpeed);
    position += velocity;
    position = std::min(std::max(position, kMinPosition), kMaxPosition);
    if (position == kMinPosition && velocity < 0) velocity = 0;

    const bool terminated = position >= kGoalPosition && velocity >= goal_velocity_;
    position_ = position;
    velocity_ = velocity;
    return {-1.0, terminated};
  }

  void write_obs(void* dst) const override {
    float* out = static_cast<float*>(dst);
    out[0] = static_cast<float>(position_);
    out[1] = static_cast<float>(velocity_);
  }

  void render(uint8_t* rgb, RenderSlot&) override {
    draw_mountain_car(rgb, position_, kGoalPosition, /*float32_state=*/false);
  }

 private:
  double goal_velocity_;
  double position_ = 0.0, velocity_ = 0.0;
};

}  // namespace envhive::classic_control
