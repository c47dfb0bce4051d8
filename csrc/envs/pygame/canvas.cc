// Build without FMA contraction (-ffp-contract=off): coordinates must round as pygame's do.
#include "canvas.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace envhive::pygame {

int draw_coord(double v) {
  // The C cast; a value outside int's range (never one a scene draws) is clamped instead of being
  // undefined behaviour.
  if (!(v > -2147483648.0)) return std::isnan(v) ? 0 : INT32_MIN;
  if (!(v < 2147483648.0)) return INT32_MAX;
  return static_cast<int>(v);
}

int16_t gfx_coord(double v) {
  if (!std::isfinite(v)) return 0;  // Python's int() raises there; the renderers never pass one
  return static_cast<int16_t>(static_cast<int64_t>(std::trunc(v)));  // modular, like the C cast
}

void Canvas::fill(Rgb c) {
  uint8_t* p = px_;
  const size_t n = static_cast<size_t>(w_ - x0_) * static_cast<size_t>(h_);
  if (c.r == c.g && c.g == c.b) {
    std::memset(p, c.r, n * 3);
    return;
  }
  for (size_t i = 0; i < n; ++i, p += 3) {
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
}

void Canvas::put(int x, int y, Rgb c) {
  if (!inside(x, y)) return;
  uint8_t* p = at(x, y);
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
}

void Canvas::put_weighted(int x, int y, Rgb c, int weight) {
  if (!inside(x, y)) return;
  const int a = (255 * weight) >> 8;  // the colour's alpha (255) scaled by the weight
  uint8_t* p = at(x, y);
  const uint8_t src[3] = {c.r, c.g, c.b};
  for (int k = 0; k < 3; ++k) {
    const int d = p[k];
    // floor division by 256 (an arithmetic shift), also for src < dst
    p[k] = static_cast<uint8_t>(d + (((src[k] - d) * a) >> 8));
  }
}

void Canvas::hline(int x1, int x2, int y, Rgb c) {
  if (x1 > x2) std::swap(x1, x2);
  if (y < 0 || y >= h_ || x2 < x0_ || x1 >= w_) return;
  x1 = std::max(x1, x0_);
  x2 = std::min(x2, w_ - 1);
  uint8_t* p = at(x1, y);
  for (int x = x1; x <= x2; ++x, p += 3) {
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
}

void Canvas::vline(int x, int y1, int y2, Rgb c) {
  if (y1 > y2) std::swap(y1, y2);
  if (x < 0 || x >= w_ || y2 < 0 || y1 >= h_) return;
  y1 = std::max(y1, 0);
  y2 = std::min(y2, h_ - 1);
  for (int y = y1; y <= y2; ++y) put(x, y, c);
}

// ---- pygame.draw.line ------------------------------------------------------------------------

namespace {

// pygame.draw's clipping: Liang-Barsky against [0, w] x [0, h] (one past the last pixel, which
// the pixel writes then drop), the clipped ends rounded half away from zero.
bool clip_draw_line(int w, int h, int& x1, int& y1, int& x2, int& y2) {
  const int p1 = x1 - x2, p2 = -p1, p3 = y1 - y2, p4 = -p3;
  const int q1 = x1, q2 = w - x1, q3 = y1, q4 = h - y1;
  if ((p1 == 0 && q1 < 0) || (p2 == 0 && q2 < 0) || (p3 == 0 && q3 < 0) || (p4 == 0 && q4 < 0)) return false;
  double enter = 0.0, leave = 1.0;
  auto bound = [&](int p, int qa, int qb, int pb) {
    if (!p) return;
    const double ra = static_cast<double>(qa) / p, rb = static_cast<double>(qb) / pb;
    if (p < 0) {
      enter = std::max(enter, ra);
      leave = std::min(leave, rb);
    } else {
      enter = std::max(enter, rb);
      leave = std::min(leave, ra);
    }
  };
  bound(p1, q1, q2, p2);
  bound(p3, q3, q4, p4);
  if (enter > leave) return false;
  auto round_away = [](double v) { return static_cast<int>(v < 0 ? v - 0.5 : v + 0.5); };
  const int ox = x1, oy = y1;
  x1 = ox + round_away(p2 * enter);
  y1 = oy + round_away(p4 * enter);
  x2 = ox + round_away(p2 * leave);
  y2 = oy + round_away(p4 * leave);
  return true;
}

}  // namespace

void Canvas::line(int x1, int y1, int x2, int y2, Rgb c) {
  if (!clip_draw_line(w_, h_, x1, y1, x2, y2)) return;
  const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
  const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  for (;;) {
    put(x1, y1, c);
    if (x1 == x2 && y1 == y2) break;
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

// ---- pygame.draw.aaline -----------------------------------------------------------------------

void Canvas::put_mixed(int x, int y, Rgb c, float b) {
  if (!inside(x, y)) return;
  uint8_t* p = at(x, y);
  const uint8_t src[3] = {c.r, c.g, c.b};
  // float -> int -> low byte, the conversion the compiled C makes of (Uint8)(float)
  for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>(static_cast<int>(b * src[k] + (1 - b) * p[k]));
}

// pygame's draw.aaline: one segment of pygame-ce's aaline with both end points drawn (the same
// float arithmetic; see ce_aaline).
void Canvas::aaline(float x1, float y1, float x2, float y2, Rgb c) {
  ce_aaline(x1, y1, x2, y2, /*skip_first=*/false, /*skip_second=*/false, /*extra_pixel=*/false, c);
}

// ---- pygame.gfxdraw.aapolygon ------------------------------------------------------------------

namespace {

enum : int { kLeft = 1, kRight = 2, kBelow = 4, kAbove = 8 };

int outcode(int x, int y, int right, int bottom) {
  int code = 0;
  if (x < 0)
    code |= kLeft;
  else if (x > right)
    code |= kRight;
  if (y < 0)
    code |= kAbove;
  else if (y > bottom)
    code |= kBelow;
  return code;
}

// SDL_gfx's line clipping (Cohen-Sutherland): the outside end moves onto the edge it crosses,
// along a single-precision slope, truncated to 16 bits; the ends may come back swapped.
bool clip_gfx_line(int w, int h, int16_t& x1, int16_t& y1, int16_t& x2, int16_t& y2) {
  const int right = w - 1, bottom = h - 1;
  for (;;) {
    int c1 = outcode(x1, y1, right, bottom), c2 = outcode(x2, y2, right, bottom);
    if (!(c1 | c2)) return true;
    if (c1 & c2) return false;
    if (!c1) {
      std::swap(x1, x2);
      std::swap(y1, y2);
      std::swap(c1, c2);
    }
    const float m = x2 != x1 ? static_cast<float>(y2 - y1) / static_cast<float>(x2 - x1) : 1.0f;
    if (c1 & kLeft) {
      y1 = static_cast<int16_t>(y1 + static_cast<int16_t>(static_cast<float>(0 - x1) * m));
      x1 = 0;
    } else if (c1 & kRight) {
      y1 = static_cast<int16_t>(y1 + static_cast<int16_t>(static_cast<float>(right - x1) * m));
      x1 = static_cast<int16_t>(right);
    } else if (c1 & kBelow) {
      if (x2 != x1) x1 = static_cast<int16_t>(x1 + static_cast<int16_t>(static_cast<float>(bottom - y1) / m));
      y1 = static_cast<int16_t>(bottom);
    } else {  // above
      if (x2 != x1) x1 = static_cast<int16_t>(x1 + static_cast<int16_t>(static_cast<float>(0 - y1) / m));
      y1 = 0;
    }
  }
}

}  // namespace

// One polygon edge as SDL_gfx draws it without its end point: Wu-style, an 8-bit error
// accumulator picking the coverage split between the two pixels straddling the ideal line.
void Canvas::aa_edge(int ax, int ay, int bx, int by, Rgb c) {
  int16_t x1 = static_cast<int16_t>(ax), y1 = static_cast<int16_t>(ay);
  int16_t x2 = static_cast<int16_t>(bx), y2 = static_cast<int16_t>(by);
  if (!clip_gfx_line(w_, h_, x1, y1, x2, y2)) return;
  // walk from the upper end down
  int xx0 = x1, yy0 = y1, xx1 = x2, yy1 = y2;
  if (yy0 > yy1) {
    std::swap(yy0, yy1);
    std::swap(xx0, xx1);
  }
  int dx = xx1 - xx0, dy = yy1 - yy0;
  if (dx == 0) {
    if (dy > 0)
      vline(x1, yy0, yy0 + dy, c);
    else
      put(x1, y1, c);
    return;
  }
  if (dy == 0) {
    hline(xx0, xx0 + dx, y1, c);
    return;
  }
  const int xdir = dx >= 0 ? 1 : -1;
  dx = std::abs(dx);
  put(x1, y1, c);  // the first end as given (after clipping), opaque
  uint32_t acc = 0;
  if (dy > dx) {  // y-major: one pixel pair per row
    const uint32_t step = static_cast<uint32_t>((dx << 16) / dy) << 16;
    int x_next = xx0 + xdir;
    while (--dy) {
      const uint32_t before = acc;
      acc += step;
      if (acc <= before) {  // the accumulator wrapped: move one column over
        xx0 = x_next;
        x_next += xdir;
      }
      ++yy0;
      const int wgt = static_cast<int>(acc >> 24);
      put_weighted(xx0, yy0, c, 255 - wgt);
      put_weighted(x_next, yy0, c, wgt);
    }
  } else {  // x-major: one pixel pair per column (a 45-degree edge gets step 0: 1 << 32 wraps)
    const uint32_t step = static_cast<uint32_t>((dy << 16) / dx) << 16;
    int y_next = yy0 + 1;
    while (--dx) {
      const uint32_t before = acc;
      acc += step;
      if (acc <= before) {
        yy0 = y_next;
        ++y_next;
      }
      xx0 += xdir;
      const int wgt = static_cast<int>(acc >> 24);
      put_weighted(xx0, yy0, c, 255 - wgt);
      put_weighted(xx0, y_next, c, wgt);
    }
  }
}

void Canvas::aapolygon(const Point* pts, int n, Rgb c) {
  if (n < 3) return;
  for (int i = 1; i < n; ++i) aa_edge(pts[i - 1].x, pts[i - 1].y, pts[i].x, pts[i].y, c);
  aa_edge(pts[n - 1].x, pts[n - 1].y, pts[0].x, pts[0].y, c);
}

// ---- pygame.gfxdraw.filled_polygon ------------------------------------------------------------

void Canvas::filled_polygon(const Point* pts, int n, Rgb c) {
  if (n < 3) return;
  int miny = pts[0].y, maxy = pts[0].y;
  for (int i = 1; i < n; ++i) {
    miny = std::min(miny, pts[i].y);
    maxy = std::max(maxy, pts[i].y);
  }
  // Scanlines off the canvas draw nothing: only the visible ones are walked.
  for (int y = std::max(miny, 0); y <= std::min(maxy, h_ - 1); ++y) {
    crossings_.clear();
    for (int i = 0; i < n; ++i) {
      const Point& p = pts[i == 0 ? n - 1 : i - 1];
      const Point& q = pts[i];
      if (p.y == q.y) continue;  // horizontal edges never cross a scanline
      const Point& lo = p.y < q.y ? p : q;
      const Point& hi = p.y < q.y ? q : p;
      // half-open [lo.y, hi.y), except that the last scanline closes the bottom edges
      if ((y >= lo.y && y < hi.y) || (y == maxy && y > lo.y && y <= hi.y))
        crossings_.push_back(((65536 * (y - lo.y)) / (hi.y - lo.y)) * (hi.x - lo.x) + 65536 * lo.x);
    }
    std::sort(crossings_.begin(), crossings_.end());
    for (size_t i = 0; i + 1 < crossings_.size(); i += 2) {
      // 16.16 -> pixel, rounding half up, the span shrunk by one unit at each end
      int xa = crossings_[i] + 1;
      xa = (xa >> 16) + ((xa & 32768) >> 15);
      int xb = crossings_[i + 1] - 1;
      xb = (xb >> 16) + ((xb & 32768) >> 15);
      hline(xa, xb, y, c);
    }
  }
}

// ---- pygame.gfxdraw.aacircle -------------------------------------------------------------------

// SDL_gfx's anti-aliased ellipse (here rx == ry): an integer midpoint walk over the two octant
// halves; each step lights the pixel on the curve and its neighbour across it with complementary
// weights from the midpoint error |d| / |s| (or / |t|), mirrored into the four quadrants.
void Canvas::aacircle(int xc, int yc, int r, Rgb c) {
  if (r < 0) return;
  if (r == 0) {
    vline(xc, yc, yc, c);
    return;
  }
  if (xc + r < 0 || xc - r > w_ - 1 || yc + r < 0 || yc - r > h_ - 1) return;
  const int a2 = r * r, b2 = r * r;
  const int ds = 2 * a2, dt = 2 * b2;
  const int xc2 = 2 * xc, yc2 = 2 * yc;
  const double sab = std::sqrt(static_cast<double>(a2 + b2));
  const int xsteps = static_cast<int16_t>(std::lrint(static_cast<double>(a2) / sab));
  const int ysteps = static_cast<int16_t>(std::lrint(static_cast<double>(b2) / sab));
  int t = 0, s = -2 * a2 * r, d = 0;
  int xp = xc, yp = yc - r, xs, ys;
  auto weight_of = [](int num, int den) {
    float cp = den != 0 ? std::min(static_cast<float>(std::abs(num)) / static_cast<float>(std::abs(den)), 1.0f) : 1.0f;
    return static_cast<int>(static_cast<uint8_t>(cp * 255));
  };
  put(xp, yp, c);
  put(xc2 - xp, yp, c);
  put(xp, yc2 - yp, c);
  put(xc2 - xp, yc2 - yp, c);
  for (int i = 1; i <= xsteps; ++i) {
    --xp;
    d += t - b2;
    if (d >= 0) {
      ys = yp - 1;
    } else if ((d - s - a2) > 0) {
      if ((2 * d - s - a2) >= 0) {
        ys = yp + 1;
      } else {
        ys = yp;
        ++yp;
        d -= s + a2;
        s += ds;
      }
    } else {
      ++yp;
      ys = yp + 1;
      d -= s + a2;
      s += ds;
    }
    t -= dt;
    const int wgt = weight_of(d, s), iwgt = 255 - wgt;
    const int xx = xc2 - xp;
    put_weighted(xp, yp, c, iwgt);
    put_weighted(xx, yp, c, iwgt);
    put_weighted(xp, ys, c, wgt);
    put_weighted(xx, ys, c, wgt);
    put_weighted(xp, yc2 - yp, c, iwgt);
    put_weighted(xx, yc2 - yp, c, iwgt);
    put_weighted(xp, yc2 - ys, c, wgt);
    put_weighted(xx, yc2 - ys, c, wgt);
  }
  for (int i = 1; i <= ysteps; ++i) {
    ++yp;
    d -= s + a2;
    if (d <= 0) {
      xs = xp + 1;
    } else if ((d + t - b2) < 0) {
      if ((2 * d + t - b2) <= 0) {
        xs = xp - 1;
      } else {
        xs = xp;
        --xp;
        d += t - b2;
        t -= dt;
      }
    } else {
      --xp;
      xs = xp - 1;
      d += t - b2;
      t -= dt;
    }
    s += ds;
    const int wgt = weight_of(d, t), iwgt = 255 - wgt;
    const int xx = xc2 - xp, yy = yc2 - yp;
    put_weighted(xp, yp, c, iwgt);
    put_weighted(xx, yp, c, iwgt);
    put_weighted(xp, yy, c, iwgt);
    put_weighted(xx, yy, c, iwgt);
    put_weighted(xs, yp, c, wgt);
    put_weighted(xc2 - xs, yp, c, wgt);
    put_weighted(xs, yy, c, wgt);
    put_weighted(xc2 - xs, yy, c, wgt);
  }
}

// ---- pygame.gfxdraw.filled_circle --------------------------------------------------------------

// Midpoint circle; each distinct row span drawn once as an hline.
void Canvas::filled_circle(int xc, int yc, int r, Rgb c) {
  if (r < 0) return;
  if (r == 0) {
    put(xc, yc, c);
    return;
  }
  if (xc + r < 0 || xc - r > w_ - 1 || yc + r < 0 || yc - r > h_ - 1) return;
  int cx = 0, cy = r, last_cx = -1, last_cy = -1;
  int df = 1 - r, d_e = 3, d_se = -2 * r + 5;
  do {
    if (last_cy != cy) {
      if (cy > 0) {
        hline(xc - cx, xc + cx, yc + cy, c);
        hline(xc - cx, xc + cx, yc - cy, c);
      } else {
        hline(xc - cx, xc + cx, yc, c);
      }
      last_cy = cy;
    }
    if (last_cx != cx) {
      if (cx != cy) {
        if (cx > 0) {
          hline(xc - cy, xc + cy, yc - cx, c);
          hline(xc - cy, xc + cy, yc + cx, c);
        } else {
          hline(xc - cy, xc + cy, yc, c);
        }
      }
      last_cx = cx;
    }
    if (df < 0) {
      df += d_e;
      d_e += 2;
      d_se += 2;
    } else {
      df += d_se;
      d_e += 2;
      d_se += 4;
      --cy;
    }
    ++cx;
  } while (cx <= cy);
}

// ---- Surface.blit of a per-pixel-alpha image ----------------------------------------------------

void Canvas::blit_alpha(const RgbaImage& img, int x0, int y0, bool flip_x, bool flip_y) {
  for (int j = 0; j < img.height; ++j) {
    const int y = y0 + j;
    if (y < 0 || y >= h_) continue;
    const int sj = flip_y ? img.height - 1 - j : j;
    for (int i = 0; i < img.width; ++i) {
      const int x = x0 + i;
      if (!inside(x, y)) continue;
      const int si = flip_x ? img.width - 1 - i : i;
      const uint8_t* s = &img.rgba[(static_cast<size_t>(sj) * static_cast<size_t>(img.width) + static_cast<size_t>(si)) * 4];
      const int a = s[3];
      uint8_t* p = at(x, y);
      for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>((((s[k] - p[k]) * a + s[k]) >> 8) + p[k]);
    }
  }
}

}  // namespace envhive::pygame
