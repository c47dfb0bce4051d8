// Built without FMA contraction (-ffp-contract=off): pixel coordinates must round as in Python.
#include "car_racing_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "../../pygame/canvas.h"
#include "../../pygame/vector2.h"
#include "../pybox2d.h"

namespace envhive::box2d {

namespace {

using pygame::Canvas;
using pygame::draw_coord;
using pygame::FPoint;
using pygame::gfx_coord;
using pygame::Point;
using pygame::Rgb;
using pygame::Vec2;

constexpr int kWindowW = 1000, kWindowH = 800;
constexpr double kScale = 6.0, kZoom = 2.7;
constexpr double kPlayfield = 2000 / kScale;
constexpr double kTrackWidth = 40 / kScale, kTrackDetailStep = 21 / kScale;
constexpr double kGrassDim = kPlayfield / 20.0;
constexpr double kSize = 0.02;
constexpr int kWheelR = 27, kWheelW = 14;
// The largest diagonal of anything drawn: polygons farther off screen than this are skipped.
const double kMaxShapeDim = std::max({kGrassDim, kTrackWidth, kTrackDetailStep}) * std::sqrt(2.0) * kZoom * kScale;
// The layout table's range of integer rewards (f"{v:04d}"), and the text's height.
constexpr int kLayoutLow = -10000, kLayoutHigh = 1000, kLayoutColumns = 7;

Rgb truncated(const Color3& c) {  // pygame's colour of a float numpy array
  return {static_cast<uint8_t>(static_cast<int>(c[0])), static_cast<uint8_t>(static_cast<int>(c[1])),
          static_cast<uint8_t>(static_cast<int>(c[2]))};
}

// The scene's view: world points rotated by `angle`, zoomed and translated to the surface.
struct View {
  double zoom, angle, tx, ty;
  Point2 operator()(double x, double y) const {
    const Vec2 r = pygame::pygame_rotate_rad({x, y}, angle);
    return {r.x * zoom + tx, r.y * zoom + ty};
  }
};

// CarRacing's _draw_colored_polygon: culled unless some corner is near the screen, then
// gfxdraw.aapolygon and gfxdraw.filled_polygon.
template <size_t N>
void colored_polygon(Canvas& cv, const std::array<Point2, N>& poly, Rgb c, const View& view, bool clip) {
  std::array<Point2, N> pts;
  bool near = !clip;
  for (size_t i = 0; i < N; ++i) {
    pts[i] = view(poly[i][0], poly[i][1]);
    near = near || (-kMaxShapeDim <= pts[i][0] && pts[i][0] <= kWindowW + kMaxShapeDim &&
                    -kMaxShapeDim <= pts[i][1] && pts[i][1] <= kWindowH + kMaxShapeDim);
  }
  if (!near) return;
  Point g[N];
  for (size_t i = 0; i < N; ++i) g[i] = {gfx_coord(pts[i][0]), gfx_coord(pts[i][1])};
  cv.aapolygon(g, static_cast<int>(N), c);
  cv.filled_polygon(g, static_cast<int>(N), c);
}

// pygame.draw.polygon of view points (ints truncated).
void draw_polygon(Canvas& cv, const Point2* pts, int n, Rgb c) {
  Point p[b2_maxPolygonVertices];
  for (int i = 0; i < n; ++i) p[i] = {draw_coord(pts[i][0]), draw_coord(pts[i][1])};
  cv.draw_polygon(p, n, c);
}

// Car.draw: the skid marks (2 px lines), then each body's fixtures, and the wheels' white stripe.
void draw_car(Canvas& cv, const Car& car, const View& view, bool particles) {
  if (particles) {
    for (const auto& p : car.particles()) {
      std::vector<Point> pts;
      for (const auto& q : p->poly) {
        const Point2 v = view(q[0], q[1]);
        pts.push_back({draw_coord(v[0]), draw_coord(v[1])});
      }
      const Rgb c{p->color[0], p->color[1], p->color[2]};
      for (size_t i = 1; i < pts.size(); ++i) cv.draw_line_wide(pts[i - 1].x, pts[i - 1].y, pts[i].x, pts[i].y, 2, c);
    }
  }
  auto body_fixtures = [&](const b2Body* body, Rgb color, const Car::Wheel* wheel) {
    for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
      const b2Transform& trans = f->GetBody()->GetTransform();
      const auto& poly = static_cast<const b2PolygonShape&>(*f->GetShape());
      Point2 path[b2_maxPolygonVertices];
      for (int i = 0; i < poly.m_count; ++i) {
        const b2Vec2 v = b2Mul(trans, poly.m_vertices[i]);  // pybox2d's transform * vertex
        path[i] = view(v.x, v.y);
      }
      draw_polygon(cv, path, poly.m_count, color);
      if (!wheel) continue;
      // The stripe that shows the wheel turning.
      const double a1 = wheel->phase, a2 = wheel->phase + 1.2;
      const double s1 = std::sin(a1), s2 = std::sin(a2);
      double c1 = std::cos(a1), c2 = std::cos(a2);
      if (s1 > 0 && s2 > 0) continue;
      if (s1 > 0) c1 = c1 > 0 ? 1.0 : (c1 < 0 ? -1.0 : c1);
      if (s2 > 0) c2 = c2 > 0 ? 1.0 : (c2 < 0 ? -1.0 : c2);
      const double white[4][2] = {{-kWheelW * kSize, +kWheelR * c1 * kSize},
                                  {+kWheelW * kSize, +kWheelR * c1 * kSize},
                                  {+kWheelW * kSize, +kWheelR * c2 * kSize},
                                  {-kWheelW * kSize, +kWheelR * c2 * kSize}};
      Point2 stripe[4];
      for (int i = 0; i < 4; ++i) {
        const b2Vec2 v = b2Mul(trans, vec(white[i][0], white[i][1]));
        stripe[i] = view(v.x, v.y);
      }
      draw_polygon(cv, stripe, 4, {77, 77, 77});
    }
  };
  for (const auto& w : car.wheels()) body_fixtures(w.body, {0, 0, 0}, &w);
  body_fixtures(car.hull(), {204, 0, 0}, nullptr);  // int(0.8 * 255)
}

// _render_indicators: the black bar, and bars for speed, the four wheels' spin, steering and yaw.
void draw_indicators(Canvas& cv, const Car& car) {
  const double W = kWindowW, H = kWindowH;
  const double s = W / 40.0, h = H / 40.0;
  auto poly4 = [&](const std::array<Point2, 4>& p, Rgb c) { draw_polygon(cv, p.data(), 4, c); };
  poly4({{{W, H}, {W, H - 5 * h}, {0, H - 5 * h}, {0, H}}}, {0, 0, 0});
  auto vertical = [&](double place, double val) {
    return std::array<Point2, 4>{{{place * s, H - (h + h * val)},
                                  {(place + 1) * s, H - (h + h * val)},
                                  {(place + 1) * s, H - h},
                                  {(place + 0) * s, H - h}}};
  };
  auto horizontal = [&](double place, double val) {
    return std::array<Point2, 4>{{{(place + 0) * s, H - 4 * h},
                                  {(place + val) * s, H - 4 * h},
                                  {(place + val) * s, H - 2 * h},
                                  {(place + 0) * s, H - 2 * h}}};
  };
  auto if_min = [&](double value, const std::array<Point2, 4>& p, Rgb c) {
    if (std::abs(value) > 1e-4) poly4(p, c);
  };
  const b2Vec2 v = car.hull()->GetLinearVelocity();
  const double vx = v.x, vy = v.y;
  const double true_speed = std::sqrt(vx * vx + vy * vy);
  if_min(true_speed, vertical(5, 0.02 * true_speed), {255, 255, 255});
  const auto& w = car.wheels();
  if_min(w[0].omega, vertical(7, 0.01 * w[0].omega), {0, 0, 255});  // ABS sensors
  if_min(w[1].omega, vertical(8, 0.01 * w[1].omega), {0, 0, 255});
  if_min(w[2].omega, vertical(9, 0.01 * w[2].omega), {51, 0, 255});
  if_min(w[3].omega, vertical(10, 0.01 * w[3].omega), {51, 0, 255});
  const double steering = w[0].joint->GetJointAngle();
  if_min(steering, horizontal(20, -10.0 * steering), {0, 255, 0});
  const double yaw = car.hull()->GetAngularVelocity();
  if_min(yaw, horizontal(30, -0.8 * yaw), {255, 0, 0});
}

}  // namespace

// ---- the reward text ---------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> CarRacingText::images() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* g = kGlyphs; *g; ++g)
    out.emplace_back(std::string("car_racing/glyph/") + *g, std::string("pygame-font:42:glyph:") + *g);
  out.emplace_back("car_racing/layout", "pygame-font:42:layout:" + std::to_string(kLayoutLow) + ":" +
                                            std::to_string(kLayoutHigh));
  return out;
}

CarRacingText::CarRacingText() {
  for (int i = 0; i < 11; ++i) {
    glyphs_[static_cast<size_t>(i)] = RenderImages::get().find(std::string("car_racing/glyph/") + kGlyphs[i]);
    width_[static_cast<size_t>(i)] = glyphs_[static_cast<size_t>(i)]->width;
  }
  layout_ = RenderImages::get().find("car_racing/layout");
  if (layout_->width != kLayoutColumns || layout_->height != kLayoutHigh - kLayoutLow + 2)
    throw std::runtime_error("CarRacing's text layout table has the wrong shape");
}

void CarRacingText::draw(uint8_t* rgb, int width, int height, const std::string& text, int cx, int cy) const {
  // The text's layout: its surface width and each glyph's x, from pygame's own layout of that
  // string (the table), or for a reward beyond it (an episode of more than 100000 steps) the
  // glyphs side by side -- the one approximation.
  int index = -1;
  if (text == "-000") {
    index = 0;
  } else {
    const long v = std::strtol(text.c_str(), nullptr, 10);
    if (v >= kLayoutLow && v <= kLayoutHigh) index = static_cast<int>(v - kLayoutLow) + 1;
  }
  auto cell = [&](int row, int col) {
    int32_t value;
    std::memcpy(&value, &layout_->rgba[(static_cast<size_t>(row) * kLayoutColumns + static_cast<size_t>(col)) * 4], 4);
    return value;
  };
  std::vector<int> xs;
  int text_w = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    const int g = static_cast<int>(std::strchr(kGlyphs, text[k]) - kGlyphs);
    if (index >= 0 && k + 1 < kLayoutColumns) {
      xs.push_back(cell(index, static_cast<int>(k) + 1));
    } else {
      xs.push_back(text_w);
    }
    text_w = xs.back() + width_[static_cast<size_t>(g)];
  }
  if (index >= 0) text_w = cell(index, 0);
  const int text_h = glyphs_[0]->height;
  // Its surface: black, each glyph's pixels combined by max where they overlap.
  std::vector<uint8_t> surface(static_cast<size_t>(text_w) * static_cast<size_t>(text_h), 0);
  for (size_t k = 0; k < text.size(); ++k) {
    const RgbaImage& g = *glyphs_[static_cast<size_t>(std::strchr(kGlyphs, text[k]) - kGlyphs)];
    for (int y = 0; y < g.height && y < text_h; ++y)
      for (int x = 0; x < g.width; ++x) {
        const int tx = xs[k] + x;
        if (tx < 0 || tx >= text_w) continue;
        uint8_t& dst = surface[static_cast<size_t>(y) * static_cast<size_t>(text_w) + static_cast<size_t>(tx)];
        dst = std::max(dst, g.rgba[(static_cast<size_t>(y) * static_cast<size_t>(g.width) + static_cast<size_t>(x)) * 4]);
      }
  }
  // text_rect.center = (cx, cy); surf.blit(text, text_rect): an opaque copy, clipped.
  const int x0 = cx - text_w / 2, y0 = cy - text_h / 2;
  for (int y = 0; y < text_h; ++y) {
    const int sy = y0 + y;
    if (sy < 0 || sy >= height) continue;
    for (int x = 0; x < text_w; ++x) {
      const int sx = x0 + x;
      if (sx < 0 || sx >= width) continue;
      const uint8_t v = surface[static_cast<size_t>(y) * static_cast<size_t>(text_w) + static_cast<size_t>(x)];
      uint8_t* p = rgb + (static_cast<size_t>(sy) * static_cast<size_t>(width) + static_cast<size_t>(sx)) * 3;
      p[0] = p[1] = p[2] = v;
    }
  }
}

// ---- the surface ---------------------------------------------------------------------------------

void draw_car_racing_surface(uint8_t* rgb, const CarRacingScene& s, const Car& car, double reward, bool particles,
                             const CarRacingText& text) {
  const b2Body* hull = car.hull();
  const double angle = -static_cast<double>(hull->GetAngle());
  // The first second zooms in.
  const double zoom = 0.1 * kScale * std::max(1 - s.t, 0.0) + kZoom * kScale * std::min(s.t, 1.0);
  const double scroll_x = -static_cast<double>(hull->GetPosition().x) * zoom;
  const double scroll_y = -static_cast<double>(hull->GetPosition().y) * zoom;
  const Vec2 trans = pygame::pygame_rotate_rad({scroll_x, scroll_y}, angle);
  const View view{zoom, angle, kWindowW / 2 + trans.x, kWindowH / 4 + trans.y};

  Canvas world(rgb, kWindowW, kWindowH, /*flip_y=*/true);  // drawn y up, then flipped
  world.fill({0, 0, 0});
  const double b = kPlayfield;
  colored_polygon<4>(world, {{{b, b}, {b, -b}, {-b, -b}, {-b, b}}}, truncated(s.bg_color), view, /*clip=*/false);
  const Rgb grass = truncated(s.grass_color);
  for (int x = -20; x < 20; x += 2)
    for (int y = -20; y < 20; y += 2)
      colored_polygon<4>(world,
                         {{{kGrassDim * x + kGrassDim, kGrassDim * y + 0},
                           {kGrassDim * x + 0, kGrassDim * y + 0},
                           {kGrassDim * x + 0, kGrassDim * y + kGrassDim},
                           {kGrassDim * x + kGrassDim, kGrassDim * y + kGrassDim}}},
                         grass, view, /*clip=*/true);
  for (const auto& p : s.road_poly) colored_polygon<4>(world, p.poly, truncated(*p.color), view, /*clip=*/true);
  draw_car(world, car, view, particles);

  Canvas screen(rgb, kWindowW, kWindowH, /*flip_y=*/false);
  draw_indicators(screen, car);
  char label[64];
  std::snprintf(label, sizeof(label), "%04.0f", reward);  // f"{self.reward:04.0f}": the same rounding
  text.draw(rgb, kWindowW, kWindowH, label, 60, static_cast<int>(kWindowH - kWindowH * 2.5 / 40.0));
}

}  // namespace envhive::box2d
