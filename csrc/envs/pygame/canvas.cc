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
