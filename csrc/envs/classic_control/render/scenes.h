// Gymnasium 1.4's classic-control render() scenes, drawn with Canvas. Each function reproduces the
// env's Python drawing code step for step -- the same float expressions in the same order, the
// same truncations to int -- so that the same pixels come out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "../../pygame/canvas.h"
#include "../../pygame/vector2.h"

namespace envhive::classic_control {

// The shared pygame rasterizer (csrc/envs/pygame/).
using pygame::Canvas;
using pygame::gfx_coord;
using pygame::Point;
using pygame::Rgb;
using pygame::smoothscale_shrink;

using pygame::pygame_rotate_rad;
using pygame::Vec2;

// CartPole-v0/v1: 600 x 400. state = (x, x_dot, theta, theta_dot), float64.
constexpr int kCartPoleWidth = 600, kCartPoleHeight = 400;
void draw_cartpole(uint8_t* rgb, const double state[4]);

// Acrobot-v1: 500 x 500. `state` holds the env's 4 values; `float32_state` says the env's state
// array is float32 (right after reset(); float64 after any step) -- Gymnasium then computes the
// link angles s[0] - pi/2 and s[0] + s[1] - pi/2 in float32 (NumPy 2's scalar promotion).
constexpr int kAcrobotSize = 500;
void draw_acrobot(uint8_t* rgb, const double state[4], bool float32_state);

// MountainCar-v0 (goal 0.5) and MountainCarContinuous-v0 (goal 0.45): 600 x 400. `position` is
// state[0]; `float32_state` is MountainCarContinuous after a step (its state array is float32,
// so Gymnasium computes the car's placement in float32 -- NEP 50 -- and np.sin is NumPy's own
// float32 sin); reset() states and every MountainCar-v0 state are float64.
constexpr int kMountainCarWidth = 600, kMountainCarHeight = 400;
void draw_mountain_car(uint8_t* rgb, double position, double goal_position, bool float32_state);

// Pendulum's torque arrow (Gymnasium's assets/clockwise.png) at each size it is drawn at:
// pygame.transform.smoothscale of the image, made on first use of a size and kept (Gymnasium
// scales the file on every frame; the result is the same). One per pool thread: not thread-safe.
class ArrowSizes {
 public:
  explicit ArrowSizes(std::shared_ptr<const RgbaImage> arrow) : arrow_(std::move(arrow)) {}
  const RgbaImage& at(int side);

 private:
  std::shared_ptr<const RgbaImage> arrow_;
  std::map<int, RgbaImage> sized_;
};

// Pendulum-v1: 500 x 500. `theta` = state[0] (float64); `last_u` is the env's last clipped torque
// (an np.float32 from the float32 action), absent right after reset().
constexpr int kPendulumSize = 500;
void draw_pendulum(uint8_t* rgb, double theta, bool has_last_u, float last_u, ArrowSizes& arrows);

}  // namespace envhive::classic_control
