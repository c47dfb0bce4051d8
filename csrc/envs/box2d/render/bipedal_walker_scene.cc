// Built without FMA contraction (-ffp-contract=off): pixel coordinates must round as in Python.
#include "bipedal_walker_scene.h"

#include <algorithm>
#include <cmath>

#include "../../pygame/canvas.h"
#include "../pybox2d.h"

namespace envhive::box2d {

namespace {

using pygame::Canvas;
using pygame::draw_coord;
using pygame::FPoint;
using pygame::gfx_coord;
using pygame::Point;
using pygame::Rgb;

constexpr double kScale = 30.0;
constexpr int kViewportW = 600, kViewportH = 400;
constexpr double kTerrainStep = 14 / kScale;
constexpr double kTerrainHeight = kViewportH / kScale / 4;

Rgb rgb_of(const Color& c) { return {c[0], c[1], c[2]}; }

// pygame.draw.polygon, and with `outline` gfxdraw.aapolygon, of the same points (Python floats).
template <size_t N>
void fill_polygon(Canvas& cv, const std::array<Point2, N>& pts, Rgb c, bool outline) {
  Point ipts[N], gpts[N];
  for (size_t i = 0; i < N; ++i) {
    ipts[i] = {draw_coord(pts[i][0]), draw_coord(pts[i][1])};
    gpts[i] = {gfx_coord(pts[i][0]), gfx_coord(pts[i][1])};
  }
  cv.draw_polygon(ipts, static_cast<int>(N), c);
  if (outline) cv.aapolygon(gpts, static_cast<int>(N), c);
}

// A body of the drawlist: a polygon filled (color1) and outlined twice (color2: pygame.draw's
// closed outline, then gfxdraw's through the repeated first point); an edge as one aaline.
void draw_body(Canvas& cv, const BipedalScene::Body& obj) {
  for (const b2Fixture* f = obj.body->GetFixtureList(); f; f = f->GetNext()) {
    const b2Transform& trans = f->GetBody()->GetTransform();
    const b2Shape::Type type = f->GetType();
    if (type == b2Shape::e_circle) {  // BipedalWalker has none; drawn as Gymnasium would
      const auto& circle = static_cast<const b2CircleShape&>(*f->GetShape());
      const b2Vec2 center = scaled(trans, circle.m_p, 30.0f);
      const int radius = draw_coord(static_cast<double>(circle.m_radius) * kScale);
      for (const Color& c : {obj.color1, obj.color2})
        cv.draw_circle(draw_coord(center.x), draw_coord(center.y), radius, rgb_of(c));
      continue;
    }
    b2Vec2 path[b2_maxPolygonVertices + 1];
    int n = 0;
    if (type == b2Shape::e_edge) {
      const auto& e = static_cast<const b2EdgeShape&>(*f->GetShape());
      path[n++] = scaled(trans, e.m_vertex1, 30.0f);
      path[n++] = scaled(trans, e.m_vertex2, 30.0f);
    } else {
      const auto& poly = static_cast<const b2PolygonShape&>(*f->GetShape());
      for (int i = 0; i < poly.m_count; ++i) path[n++] = scaled(trans, poly.m_vertices[i], 30.0f);
    }
    if (n > 2) {
      Point ipath[b2_maxPolygonVertices + 1], gpath[b2_maxPolygonVertices + 1];
      for (int i = 0; i < n; ++i) {
        ipath[i] = {draw_coord(path[i].x), draw_coord(path[i].y)};
        gpath[i] = {gfx_coord(path[i].x), gfx_coord(path[i].y)};
      }
      cv.draw_polygon(ipath, n, rgb_of(obj.color1));
      cv.aapolygon(gpath, n, rgb_of(obj.color1));
      ipath[n] = ipath[0];
      gpath[n] = gpath[0];
      // pygame.draw.polygon(width=1): pygame.draw.lines, closed
      for (int i = 1; i <= n; ++i)
        cv.draw_line(ipath[i - 1].x, ipath[i - 1].y, ipath[i].x, ipath[i].y, rgb_of(obj.color2));
      cv.draw_line(ipath[n].x, ipath[n].y, ipath[0].x, ipath[0].y, rgb_of(obj.color2));
      cv.aapolygon(gpath, n + 1, rgb_of(obj.color2));
    } else {
      const FPoint line[2] = {{path[0].x, path[0].y}, {path[1].x, path[1].y}};
      cv.draw_aaline(line[0], line[1], rgb_of(obj.color1));
    }
  }
}

}  // namespace

void draw_bipedal_walker(uint8_t* rgb, BipedalScene& s) {
  // pygame.Surface((600 + max(0, scroll) * 30, 400)): the width truncated to an int.
  const int width = draw_coord(kViewportW + std::max(0.0, s.scroll) * kScale);
  Canvas cv(rgb, width, kViewportH, /*flip_y=*/true, /*x0=*/width - kViewportW);
  cv.fill({0, 0, 0});
  const double sx = s.scroll * kScale;
  fill_polygon<4>(cv, {{{sx, 0}, {sx + kViewportW, 0}, {sx + kViewportW, kViewportH}, {sx, kViewportH}}},
                  {215, 215, 255}, /*outline=*/false);  // the sky
  for (const auto& cloud : s.clouds) {
    if (cloud.x2 < s.scroll / 2) continue;
    if (cloud.x1 > s.scroll / 2 + kViewportW / kScale) continue;
    std::array<Point2, 5> pts;
    for (size_t i = 0; i < 5; ++i) pts[i] = {cloud.poly[i][0] * kScale + s.scroll * kScale / 2, cloud.poly[i][1] * kScale};
    fill_polygon(cv, pts, {255, 255, 255}, /*outline=*/true);
  }
  for (const auto& poly : s.terrain_poly) {
    if (poly[1][0] < s.scroll) continue;
    if (poly[0][0] > s.scroll + kViewportW / kScale) continue;
    std::array<Point2, 4> pts;
    for (size_t i = 0; i < 4; ++i) pts[i] = {poly[i][0] * kScale, poly[i][1] * kScale};
    fill_polygon(cv, pts, {102, 153, 76}, /*outline=*/true);
  }
  s.lidar_render = (s.lidar_render + 1) % 100;
  const int i = s.lidar_render;
  if (i < 2 * 10) {
    const BipedalScene::Ray& ray = s.lidar[static_cast<size_t>(i < 10 ? i : 19 - i)];
    cv.draw_line(draw_coord(ray.p1[0] * kScale), draw_coord(ray.p1[1] * kScale), draw_coord(ray.p2[0] * kScale),
                 draw_coord(ray.p2[1] * kScale), {255, 0, 0});
  }
  for (const auto& obj : s.drawlist) draw_body(cv, obj);
  // The start flag: a pole, a triangle, its outline.
  const double flagy1 = kTerrainHeight * kScale;
  const double flagy2 = flagy1 + 50;
  const double x = kTerrainStep * 3 * kScale;
  cv.draw_aaline({static_cast<float>(x), static_cast<float>(flagy1)}, {static_cast<float>(x), static_cast<float>(flagy2)},
                 {0, 0, 0});
  const double f[3][2] = {{x, flagy2}, {x, flagy2 - 10}, {x + 25, flagy2 - 5}};
  Point ipts[4];
  for (int k = 0; k < 3; ++k) ipts[k] = {draw_coord(f[k][0]), draw_coord(f[k][1])};
  ipts[3] = ipts[0];
  cv.draw_polygon(ipts, 3, {230, 51, 0});
  for (int k = 1; k < 4; ++k) cv.draw_line(ipts[k - 1].x, ipts[k - 1].y, ipts[k].x, ipts[k].y, {0, 0, 0});
}

}  // namespace envhive::box2d
