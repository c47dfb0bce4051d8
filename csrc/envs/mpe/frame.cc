#include "frame.h"

#include <cmath>

#include "../pygame/canvas.h"

namespace envhive::mpe {
namespace {

using pygame::Canvas;
using pygame::Rgb;

// Python's float // float (CPython float_floor_div).
double py_floordiv(double v, double w) {
  double mod = std::fmod(v, w);
  double div = (v - mod) / w;
  if (mod != 0.0) {
    if ((w < 0) != (mod < 0)) div -= 1.0;
  }
  if (div != 0.0) {
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return std::copysign(0.0, v / w);
}

// pygame-ce's colour from a numpy float array (entity.color * 200): each channel int()-ed.
uint8_t channel(double v) { return static_cast<uint8_t>(static_cast<int>(v)); }

// pygame.draw.circle(surface, colour, center, radius, 1): the midpoint circle's eight octants,
// one pixel each (pygame-ce's thin ring), pixels off the surface dropped.
void ring(Canvas& canvas, int x0, int y0, int radius, Rgb c) {
  if (radius < 1) return;
  if (radius == 1) {  // pygame-ce: width >= radius draws the filled circle
    canvas.draw_circle(x0, y0, radius, c);
    return;
  }
  int f = 1 - radius, ddf_x = 0, ddf_y = -2 * radius, x = 0, y = radius;
  const auto dot = [&](int px, int py) { canvas.draw_rect(px, py, 1, 1, c); };
  while (x < y) {
    if (f >= 0) {
      --y;
      ddf_y += 2;
      f += ddf_y;
    }
    ++x;
    ddf_x += 2;
    f += ddf_x + 1;
    dot(x0 + x - 1, y0 + y - 1);
    dot(x0 - x, y0 + y - 1);
    dot(x0 + x - 1, y0 - y);
    dot(x0 - x, y0 - y);
    dot(x0 + y - 1, y0 + x - 1);
    dot(x0 + y - 1, y0 - x);
    dot(x0 - y, y0 + x - 1);
    dot(x0 - y, y0 - x);
  }
}

}  // namespace

double camera_range(const World& world) {
  double m = 0.0;  // every |p| is >= 0; a NaN position propagates as np.max does
  for (const Entity& e : world.entities)
    for (double p : e.pos) {
      const double a = std::fabs(p);
      if (std::isnan(a)) return a;
      if (a > m) m = a;
    }
  return m;
}

void draw_frame(const World& world, double original_cam_range, bool dynamic_rescaling, uint8_t* rgb) {
  Canvas canvas(rgb, kFrameSide, kFrameSide, false);
  canvas.fill({255, 255, 255});
  const double cam_range = camera_range(world);
  const double scaling = 0.9 * original_cam_range / cam_range;
  const double side = kFrameSide;
  for (const Entity& e : world.entities) {
    double x = e.pos[0];
    double y = e.pos[1] * -1;
    x = py_floordiv((x / cam_range) * side, 2) * 0.9;
    y = py_floordiv((y / cam_range) * side, 2) * 0.9;
    x += kFrameSide / 2;
    y += kFrameSide / 2;
    const double radius = dynamic_rescaling ? e.size * 350 * scaling : e.size * 350;
    const int cx = pygame::draw_coord(x), cy = pygame::draw_coord(y), r = pygame::draw_coord(radius);
    canvas.draw_circle(cx, cy, r, {channel(e.color[0] * 200), channel(e.color[1] * 200), channel(e.color[2] * 200)});
    ring(canvas, cx, cy, r, {0, 0, 0});
  }
}

}  // namespace envhive::mpe
