// Built without FMA contraction (-ffp-contract=off): pixel coordinates must round as in Python.
#include "lunar_lander_scene.h"

#include <algorithm>

#include "../../pygame/canvas.h"
#include "../pybox2d.h"

namespace envhive::box2d {

namespace {

using pygame::Canvas;
using pygame::FPoint;
using pygame::Point;
using pygame::Rgb;

constexpr float32 kScale = 30.0f;
constexpr Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kFlag{204, 204, 0};
constexpr Rgb kBodyFill{128, 102, 230}, kBodyEdge{77, 77, 128};  // lander and legs: color1, color2

// One fixture of a body, as Gymnasium draws it: a circle twice (color1, color2) or a polygon
// filled, outlined by gfxdraw.aapolygon in color1 and by draw.aalines in color2.
void draw_fixture(Canvas& cv, const b2Fixture& f, Rgb color1, Rgb color2) {
  const b2Transform& trans = f.GetBody()->GetTransform();
  if (f.GetType() == b2Shape::e_circle) {
    const auto& circle = static_cast<const b2CircleShape&>(*f.GetShape());
    const b2Vec2 center = scaled(trans, circle.m_p, kScale);
    const int radius = pygame::draw_coord(static_cast<double>(circle.m_radius) * 30.0);
    for (Rgb c : {color1, color2})
      cv.draw_circle(pygame::draw_coord(center.x), pygame::draw_coord(center.y), radius, c);
    return;
  }
  const auto& poly = static_cast<const b2PolygonShape&>(*f.GetShape());
  Point ipath[b2_maxPolygonVertices], gpath[b2_maxPolygonVertices];
  FPoint fpath[b2_maxPolygonVertices];
  const int n = poly.m_count;
  for (int i = 0; i < n; ++i) {
    const b2Vec2 v = scaled(trans, poly.m_vertices[i], kScale);
    ipath[i] = {pygame::draw_coord(v.x), pygame::draw_coord(v.y)};
    gpath[i] = {pygame::gfx_coord(v.x), pygame::gfx_coord(v.y)};
    fpath[i] = {v.x, v.y};
  }
  cv.draw_polygon(ipath, n, color1);
  cv.aapolygon(gpath, n, color1);
  cv.draw_aalines(fpath, n, /*closed=*/true, color2);
}

// The landing flags, which Gymnasium draws again after every fixture.
void draw_flags(Canvas& cv, const LunarLanderScene& s) {
  for (double x : {s.helipad_x1, s.helipad_x2}) {
    x = x * 30.0;
    const double flagy1 = s.helipad_y * 30.0;
    const double flagy2 = flagy1 + 50;
    cv.draw_line(pygame::draw_coord(x), pygame::draw_coord(flagy1), pygame::draw_coord(x), pygame::draw_coord(flagy2),
                 kWhite);
    const double flag[3][2] = {{x, flagy2}, {x, flagy2 - 10}, {x + 25, flagy2 - 5}};
    Point ipts[3], gpts[3];
    for (int i = 0; i < 3; ++i) {
      ipts[i] = {pygame::draw_coord(flag[i][0]), pygame::draw_coord(flag[i][1])};
      gpts[i] = {pygame::gfx_coord(flag[i][0]), pygame::gfx_coord(flag[i][1])};
    }
    cv.draw_polygon(ipts, 3, kFlag);
    cv.aapolygon(gpts, 3, kFlag);
  }
}

// A particle's colour for its time to live: int(max(0.2, 0.15 + ttl) * 255), int(max(0.2, 0.5 * ttl) * 255) x 2.
Rgb particle_color(double ttl) {
  const auto channel = [](double v) { return static_cast<uint8_t>(static_cast<int>(std::max(0.2, v) * 255)); };
  return {channel(0.15 + ttl), channel(0.5 * ttl), channel(0.5 * ttl)};
}

}  // namespace

void draw_lunar_lander(uint8_t* rgb, const LunarLanderScene& s) {
  Canvas cv(rgb, 600, 400, /*flip_y=*/true);
  cv.fill(kWhite);
  for (const auto& quad : *s.sky_polys) {
    Point ipts[4], gpts[4];
    for (int i = 0; i < 4; ++i) {
      const double x = quad[i][0] * 30.0, y = quad[i][1] * 30.0;
      ipts[i] = {pygame::draw_coord(x), pygame::draw_coord(y)};
      gpts[i] = {pygame::gfx_coord(x), pygame::gfx_coord(y)};
    }
    cv.draw_polygon(ipts, 4, kBlack);
    cv.aapolygon(gpts, 4, kBlack);
  }
  auto draw_body = [&](const b2Body* body, Rgb color1, Rgb color2) {
    for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
      draw_fixture(cv, *f, color1, color2);
      draw_flags(cv, s);
    }
  };
  for (const auto& p : s.particles) draw_body(p.body, particle_color(p.ttl), particle_color(p.ttl));
  draw_body(s.lander, kBodyFill, kBodyEdge);
  for (const b2Body* leg : s.legs) draw_body(leg, kBodyFill, kBodyEdge);
}

}  // namespace envhive::box2d
