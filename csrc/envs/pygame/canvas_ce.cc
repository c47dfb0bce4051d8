// pygame-ce 2.5's pygame.draw (rect, line, wide line, polygon, circle, aaline and aalines), the
// primitives Gymnasium 1.4's renderers draw with under pygame-ce; canvas.cc has pygame 2's and
// SDL_gfx's. Build without FMA contraction (-ffp-contract=off): coordinates must round as pygame's do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "canvas.h"

namespace envhive::pygame {

// ---- pygame-ce 2.5's pygame.draw -----------------------------------------------------------------

void Canvas::draw_rect(int x, int y, int w, int h, Rgb c) {
  const int x1 = std::max(x, 0), y1 = std::max(y, 0);
  const int x2 = std::min(x + w, w_), y2 = std::min(y + h, h_);
  for (int yy = y1; yy < y2; ++yy)
    for (int xx = x1; xx < x2; ++xx) put(xx, yy, c);
}

void Canvas::draw_rect_outline(int x, int y, int w, int h, int width, Rgb c) {
  const int cw = std::min(x + w, w_) - std::max(x, 0), ch = std::min(y + h, h_) - std::max(y, 0);
  if (cw <= 0 || ch <= 0) return;
  if (!(width > 0 && 2 * width < cw && 2 * width < ch)) {
    draw_rect(x, y, w, h, c);
    return;
  }
  const int x1 = x, y1 = y, x2 = x + w - 1, y2 = y + h - 1;
  for (int i = 0; i < width; ++i) {
    span(x1, x2, y1 + i, c);
    span(x1, x2, y2 - i, c);
  }
  for (int i = 0; i < (y2 - y1) - 2 * width + 1; ++i) {
    span(x1, x1 + width - 1, y1 + width + i, c);
    span(x2 - width + 1, x2, y1 + width + i, c);
  }
}

void Canvas::draw_line(int x1, int y1, int x2, int y2, Rgb c) {
  if (y1 == y2 || x1 == x2) {  // straight: every pixel from start to end
    const int n = std::max(std::abs(x2 - x1), std::abs(y2 - y1));
    const int sx = x1 < x2 ? 1 : (x1 > x2 ? -1 : 0), sy = y1 < y2 ? 1 : (y1 > y2 ? -1 : 0);
    for (int k = 0; k <= n; ++k) put(x1 + sx * k, y1 + sy * k, c);
    return;
  }
  const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
  const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  while (x1 != x2 || y1 != y2) {
    put(x1, y1, c);
    const int e2 = err;
    if (e2 > -dx) {
      err -= dy;
      x1 += sx;
    }
    if (e2 < dy) {
      err += dx;
      y1 += sy;
    }
  }
  put(x2, y2, c);
}

void Canvas::draw_line_wide(int x1, int y1, int x2, int y2, int width, Rgb c) {
  if (width < 1) return;
  if (width == 1) {
    draw_line(x1, y1, x2, y2, c);
    return;
  }
  const int extra = 1 - (width % 2);
  width /= 2;
  const bool steep = std::abs(x1 - x2) <= std::abs(y1 - y2);  // thickness grows along x
  // The whole line (grown by its width) outside the surface: nothing to draw.
  const int left = std::min(x1, x2) - (steep ? width : 0), right = std::max(x1, x2) + (steep ? width : 0);
  const int top = std::min(y1, y2) - (steep ? 0 : width), bottom = std::max(y1, y2) + (steep ? 0 : width);
  if (right < 0 || bottom < 0 || w_ <= left || h_ <= top) return;
  auto across = [&](int x, int y) {  // one step's span
    if (steep) {
      if (y >= 0 && y < h_) span(std::max(x - width + extra, 0), std::min(w_ - 1, x + width), y, c);
    } else if (x >= 0 && x < w_) {
      for (int yy = std::max(y - width + extra, 0); yy <= std::min(h_ - 1, y + width); ++yy) put(x, yy, c);
    }
  };
  if (x1 == x2 && y1 == y2) {  // a point: one row
    const int from = std::max(x1 - width + extra, 0), to = std::min(w_ - 1, x1 + width);
    if (from <= to) span(from, to, y1, c);
    return;
  }
  const int dx = std::abs(x2 - x1), dy = std::abs(y2 - y1);
  const int sx = x2 > x1 ? 1 : -1, sy = y2 > y1 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  while (steep ? y1 != y2 + sy : x1 != x2 + sx) {
    across(x1, y1);
    const int e2 = err;
    if (e2 > -dx) {
      err -= dy;
      x1 += sx;
    }
    if (e2 < dy) {
      err += dx;
      y1 += sy;
    }
  }
}

void Canvas::span(int x1, int x2, int y, Rgb c) { hline(x1, x2, y, c); }

void Canvas::filltri(const Point* pts, Rgb c) {
  Point p0 = pts[0], p1 = pts[1], p2 = pts[2];
  // Sort by y (a stable three-element sort, as pygame-ce's swaps do it).
  if (p1.y < p0.y) std::swap(p0, p1);
  if (p2.y < p1.y) {
    std::swap(p1, p2);
    if (p1.y < p0.y) std::swap(p0, p1);
  }
  if (p0.y == p1.y && p1.y == p2.y && p0.x == p1.x && p1.x != p2.x) std::swap(p1, p2);
  // Inverse slopes in double (the 1e-17 keeps a flat edge finite), then kept as float.
  const float d1 = static_cast<float>((p2.x - p0.x) / ((p2.y - p0.y) + 1e-17));
  const float d2 = static_cast<float>((p1.x - p0.x) / ((p1.y - p0.y) + 1e-17));
  const float d3 = static_cast<float>((p2.x - p1.x) / ((p2.y - p1.y) + 1e-17));
  for (int y = std::max(p0.y, 0); y <= std::min(p2.y, h_ - 1); ++y) {  // rows off the canvas draw nothing
    const int x1 = p0.x + static_cast<int>(static_cast<float>(y - p0.y) * d1);
    const int x2 = y < p1.y ? p0.x + static_cast<int>(static_cast<float>(y - p0.y) * d2)
                            : p1.x + static_cast<int>(static_cast<float>(y - p1.y) * d3);
    span(x1, x2, y, c);
  }
}

void Canvas::draw_polygon(const Point* pts, int n, Rgb c) {
  if (n < 3) return;
  if (n == 3) {
    filltri(pts, c);
    return;
  }
  int miny = pts[0].y, maxy = pts[0].y;
  for (int i = 1; i < n; ++i) {
    miny = std::min(miny, pts[i].y);
    maxy = std::max(maxy, pts[i].y);
  }
  if (miny == maxy) {  // one row high
    int minx = pts[0].x, maxx = pts[0].x;
    for (int i = 1; i < n; ++i) {
      minx = std::min(minx, pts[i].x);
      maxx = std::max(maxx, pts[i].x);
    }
    span(minx, maxx, miny, c);
    return;
  }
  crossings_.resize(static_cast<size_t>(n));
  // Scanlines off the canvas draw nothing: only the visible ones are walked.
  for (int y = std::max(miny, 0); y <= std::min(maxy, h_ - 1); ++y) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
      const Point& a = pts[i == 0 ? n - 1 : i - 1];
      const Point& b = pts[i];
      if (a.y == b.y) continue;  // horizontal edges: below
      const Point& lo = a.y < b.y ? a : b;
      const Point& hi = a.y < b.y ? b : a;
      // The edge's upper end is in, its lower end out -- except on the last row.
      if ((y >= lo.y && y < hi.y) || (y == maxy && hi.y == maxy)) {
        float cross = static_cast<float>((y - lo.y) * (hi.x - lo.x)) / static_cast<float>(hi.y - lo.y);
        // Alternate crossings round down and up (pygame-ce's rule, by the order found).
        cross = static_cast<float>(count % 2 == 0 ? std::floor(cross) : std::ceil(cross));
        crossings_[static_cast<size_t>(count++)] = static_cast<int>(cross) + lo.x;
      }
    }
    std::sort(crossings_.begin(), crossings_.begin() + count);
    for (int i = 0; i + 1 < count; i += 2) span(crossings_[i], crossings_[i + 1], y, c);
  }
  // Horizontal edges strictly between the top and bottom rows are not always covered above.
  for (int i = 0; i < n; ++i) {
    const Point& a = pts[i == 0 ? n - 1 : i - 1];
    const Point& b = pts[i];
    if (miny < b.y && a.y == b.y && b.y < maxy) span(b.x, a.x, b.y, c);
  }
}

void Canvas::draw_circle_ring(int x0, int y0, int radius, Rgb c) {
  if (radius < 1) return;
  if (radius == 1) {  // pygame-ce: width >= radius draws the filled circle
    draw_circle(x0, y0, radius, c);
    return;
  }
  int f = 1 - radius, ddf_x = 0, ddf_y = -2 * radius, x = 0, y = radius;
  const auto dot = [&](int px, int py) { draw_rect(px, py, 1, 1, c); };
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

void Canvas::draw_circle(int x0, int y0, int r, Rgb c) {
  if (r < 1) return;
  if (x0 > w_ + r || x0 < -r || y0 > h_ + r || y0 < -r) return;
  int f = 1 - r, ddf_x = 0, ddf_y = -2 * r, x = 0, y = r;
  const int xmax = x0 < 0 ? x0 + INT32_MAX + 1 : INT32_MAX - x0;
  while (x < y) {
    if (f >= 0) {
      --y;
      ddf_y += 2;
      f += ddf_y;
    }
    ++x;
    ddf_x += 2;
    f += ddf_x + 1;
    if (f >= 0) {  // the outer rows, once per step of y
      span(x0 - x, x0 + std::min(x - 1, xmax), y0 + y - 1, c);
      span(x0 - x, x0 + std::min(x - 1, xmax), y0 - y, c);
    }
    span(x0 - y, x0 + std::min(y - 1, xmax), y0 + x - 1, c);
    span(x0 - y, x0 + std::min(y - 1, xmax), y0 - x, c);
  }
}

// One segment of pygame-ce's aaline, in float as pygame-ce computes it. skip_first / skip_second
// leave an end point to the neighbouring segment; extra_pixel draws it anyway (a steep segment
// meeting a flat one).
void Canvas::ce_aaline(float from_x, float from_y, float to_x, float to_y, bool skip_first, bool skip_second,
                       bool extra_pixel, Rgb c) {
  float dx = to_x - from_x, dy = to_y - from_y;
  if (std::fabs(dx) < 0.0001 && std::fabs(dy) < 0.0001) {  // a point: full brightness
    put_mixed(static_cast<int>(std::floor(from_x + 0.5)), static_cast<int>(std::floor(from_y + 0.5)), c, 1.0f);
    return;
  }
  // Clipped one pixel beyond the canvas on every side, so the border pixels come out right.
  float clip_left = -1.0f, clip_right = clip_left + static_cast<float>(w_) + 1.0f;
  float clip_top = -1.0f, clip_bottom = clip_top + static_cast<float>(h_) + 1.0f;
  const bool steep = std::fabs(dx) < std::fabs(dy);
  if (steep) {
    std::swap(from_x, from_y);
    std::swap(to_x, to_y);
    std::swap(dx, dy);
    std::swap(clip_left, clip_top);
    std::swap(clip_right, clip_bottom);
  }
  if (dx < 0) {
    std::swap(from_x, to_x);
    std::swap(from_y, to_y);
    dx = -dx;
    dy = -dy;
  }
  if (to_x <= clip_left || from_x >= clip_right) return;
  const float gradient = dy / dx;
  if (from_x < clip_left) {
    from_y += gradient * (clip_left - from_x);
    from_x = clip_left;
  }
  if (to_x > clip_right) {
    to_y += gradient * (clip_right - to_x);
    to_x = clip_right;
  }
  if (gradient > 0.0f) {
    if (to_y <= clip_top || from_y >= clip_bottom) return;
    if (from_y < clip_top) {
      from_x += (clip_top - from_y) / gradient;
      from_y = clip_top;
    }
    if (to_y > clip_bottom) {
      to_x += (clip_bottom - to_y) / gradient;
      to_y = clip_bottom;
    }
  } else {
    if (from_y <= clip_top || to_y >= clip_bottom) return;
    if (to_y < clip_top) {
      to_x += (clip_top - to_y) / gradient;
      to_y = clip_top;
    }
    if (from_y > clip_bottom) {
      from_x += (clip_bottom - from_y) / gradient;
      from_y = clip_bottom;
    }
  }
  // One pixel down, so that (int) truncation floors every y; pixels are drawn one row up.
  from_y += 1.0f;
  to_y += 1.0f;
  // (x, y) in the line's own frame -> the canvas pixel.
  auto plot = [&](int major, int minor, float brightness) {
    if (steep)
      put_mixed(minor, major, c, brightness);
    else
      put_mixed(major, minor, c, brightness);
  };
  // An end point covers the part of its pixel column the segment reaches (x_gap).
  auto end_point = [&](int x_pixel, float y_end, float x_gap) {
    float brightness = y_end - static_cast<float>(static_cast<int>(y_end));
    const int y = static_cast<int>(y_end);
    if (static_cast<float>(y) < y_end) plot(x_pixel, y, brightness * x_gap);
    brightness = 1 - brightness;
    plot(x_pixel, y - 1, brightness * x_gap);
  };
  int x_start = 0;
  float intersect_y = 0.0f;
  if (!skip_first || extra_pixel) {
    x_start = static_cast<int>(from_x);
    const float y_end = from_y + gradient * (static_cast<float>(x_start) - from_x);
    intersect_y = y_end;
    if (to_x > clip_left + 1.0f) {
      end_point(x_start, y_end, static_cast<float>(1 + x_start) - from_x);
      intersect_y += gradient;
      ++x_start;
    }
  }
  if (skip_first) {  // the main loop starts past the first end point
    x_start = static_cast<int>(std::ceil(from_x));
    intersect_y = from_y + gradient * (static_cast<float>(x_start) - from_x);
  }
  const int x_end = static_cast<int>(std::ceil(to_x));
  if ((!skip_second || extra_pixel) && from_x < clip_right - 1.0f) {
    const float y_end = to_y + gradient * (static_cast<float>(x_end) - to_x);
    end_point(x_end, y_end, static_cast<float>(1 - x_end) + to_x);
  }
  for (int x = x_start; x < x_end; ++x) {
    const int y = static_cast<int>(intersect_y);
    const float brightness = 1 - intersect_y + static_cast<float>(y);
    plot(x, y - 1, brightness);
    if (static_cast<float>(y) < intersect_y) plot(x, y, 1 - brightness);
    intersect_y += gradient;
  }
}

void Canvas::draw_aalines(const FPoint* p, int n, bool closed, Rgb c) {
  if (n < 2) return;
  auto steep = [](FPoint a, FPoint b) { return std::fabs(b.x - a.x) < std::fabs(b.y - a.y); };
  // An end point shared with the next segment is drawn by the segment loop only when it lies
  // exactly on a pixel (both coordinates whole).
  auto on_pixel = [](FPoint q) { return std::roundf(q.x) == q.x && std::roundf(q.y) == q.y; };
  // The first segment. pygame-ce compares it with the next one's slope using its first point's
  // y (not its second's), and draws the extra pixel only when it is steep and that one is not.
  FPoint prev[2] = {p[0], p[1]};
  {
    const bool steep_curr = n > 2 && std::fabs(p[2].x - p[1].x) < std::fabs(p[2].y - p[0].y);
    const bool extra = steep(p[0], p[1]) > steep_curr;
    const bool skip = !on_pixel(p[1]);
    ce_aaline(p[0].x, p[0].y, p[1].x, p[1].y, closed ? skip : false, skip, extra, c);
  }
  for (int i = 2; i < n - 1; ++i) {
    const bool extra = steep(prev[0], prev[1]) != steep(p[i - 1], p[i]);
    const bool skip = !on_pixel(p[i]);
    prev[0] = p[i - 1];
    prev[1] = p[i];
    ce_aaline(p[i - 1].x, p[i - 1].y, p[i].x, p[i].y, skip, skip, extra, c);
  }
  {
    const FPoint a = p[n - 2], b = p[n - 1];
    const bool extra = steep(prev[0], prev[1]) != steep(a, b);
    const bool skip = !on_pixel(b);
    prev[0] = a;
    prev[1] = b;
    ce_aaline(a.x, a.y, b.x, b.y, skip, closed ? skip : false, extra, c);
  }
  if (closed && n > 2) {
    const FPoint a = p[n - 1], b = p[0];
    const bool extra = steep(prev[0], prev[1]) != steep(a, b);
    const bool skip = !on_pixel(b);
    ce_aaline(a.x, a.y, b.x, b.y, skip, skip, extra, c);
  }
}

}  // namespace envhive::pygame
