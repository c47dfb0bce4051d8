// pygame.math.Vector2's rotation, as Gymnasium's renderers use it (CartPole's pole, CarRacing's
// whole scene): the same reductions and special cases, so the same doubles come out.
#pragma once

#include <cmath>
#include <numbers>

namespace envhive::pygame {

// pygame.math.Vector2((x, y)).rotate_rad(angle): the angle is reduced to [0, 2 pi) with fmod, and
// multiples of 90 degrees (within 1e-6) are exact swaps -- both change the rounding of sin/cos.
struct Vec2 {
  double x, y;
};
inline Vec2 pygame_rotate_rad(Vec2 v, double angle) {
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  constexpr double kHalfPi = std::numbers::pi / 2.0;
  constexpr double kEps = 1e-6;  // Vector2's default epsilon
  angle = std::fmod(angle, kTwoPi);
  if (angle < 0) angle += kTwoPi;
  if (std::fmod(angle + kEps, kHalfPi) < 2 * kEps) {
    switch (static_cast<int>((angle + kEps) / kHalfPi)) {
      case 1:
        return {-v.y, v.x};
      case 2:
        return {-v.x, -v.y};
      case 3:
        return {v.y, -v.x};
      default:  // 0 or 4: a full turn
        return v;
    }
  }
  const double s = std::sin(angle), c = std::cos(angle);
  return {c * v.x - s * v.y, s * v.x + c * v.y};
}

}  // namespace envhive::pygame
