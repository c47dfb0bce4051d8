// A small software rasterizer that draws what Gymnasium's renderers draw with pygame, pixel for
// pixel: the same integer and float rules as pygame.gfxdraw (SDL_gfx) and pygame.draw for the
// primitives those renderers use. Written from the primitives' documented and observed behaviour.
// Shared by every family whose Gymnasium renderer draws with pygame (classic control, Box2D, toy
// text).
//
// Two generations of pygame.draw are here. The classic-control scenes use `line` and `aaline` as
// pygame 2 draws them; the Box2D and toy-text scenes (Gymnasium 1.4's box2d and toy-text extras
// install pygame-ce) use the draw_* members, which follow pygame-ce 2.5: its rewritten aaline,
// its unclipped Bresenham line, its polygon and triangle fills and its filled circle.
//
// Coordinates are pygame's (x right, y down, origin top-left). Gymnasium draws the scene with y up
// and then flips the surface vertically (pygame.transform.flip(surf, False, True)); a Canvas
// created with flip_y writes row (h - 1 - y), so the frame comes out already flipped, with no copy.
// The frame is RGB, h x w x 3, rows top first: what np.transpose(pixels3d(screen), (1, 0, 2)) is.
//
// Conventions shared by every primitive (they matter for equality):
//  - pygame.gfxdraw takes each coordinate as Python int() of the value -- truncation toward zero
//    -- stored in a 16-bit int (gfx_coord); pygame-ce's draw functions that take ints truncate a
//    float to a C int (draw_coord), those that take floats round it to a C float;
//  - opaque colours are written, not blended; anti-aliased pixels of weight w (0..255) blend with
//    alpha a = (255 * w) >> 8 as  dst + floor((src - dst) * a / 256)  per channel (a == 255 would
//    be a plain write, which weights never reach);
//  - pixels outside the canvas are dropped; lines are clipped as pygame clips them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transform.h"

namespace envhive::pygame {

struct Rgb {
  uint8_t r, g, b;
};

struct Point {
  int x, y;
};

struct FPoint {
  float x, y;
};

// Python's int(v) for a coordinate handed to pygame.gfxdraw, as the 16-bit value SDL_gfx gets.
int16_t gfx_coord(double v);
// A Python float handed to a pygame-ce draw function that takes ints: the C cast (int)v.
int draw_coord(double v);

class Canvas {
 public:
  // Draws into `rgb` (h x w x 3, caller-owned), flipping y when flip_y. With x0 > 0 the surface
  // is w wide but only its columns x0 .. w - 1 are kept: `rgb` is h x (w - x0) x 3 (a frame that
  // shows the right end of a wider surface, as BipedalWalker's does; every primitive clips to the
  // whole surface, as pygame's do).
  Canvas(uint8_t* rgb, int w, int h, bool flip_y, int x0 = 0) : px_(rgb), w_(w), h_(h), x0_(x0), flip_y_(flip_y) {}
  int width() const { return w_; }
  int height() const { return h_; }

  void fill(Rgb c);

  // pygame.gfxdraw.hline / vline: every pixel from one end to the other, both included.
  void hline(int x1, int x2, int y, Rgb c);
  void vline(int x, int y1, int y2, Rgb c);
  // pygame.draw.line(surface, color, start, end) with width 1: Bresenham between the truncated
  // end points, clipped like pygame.draw clips.
  void line(int x1, int y1, int x2, int y2, Rgb c);
  // pygame.draw.aaline / aalines (blend on): Wu's algorithm in single precision on the float
  // end points, each pixel mixed with what is under it: (uint8)(b * colour + (1 - b) * below).
  void aaline(float x1, float y1, float x2, float y2, Rgb c);
  // pygame.gfxdraw.aapolygon: the anti-aliased outline, one edge per consecutive pair of points
  // (and last -> first), each edge without its end point.
  void aapolygon(const Point* pts, int n, Rgb c);
  // pygame.gfxdraw.filled_polygon: SDL_gfx's scanline fill (16.16 fixed-point edge crossings).
  void filled_polygon(const Point* pts, int n, Rgb c);
  // pygame.gfxdraw.aacircle / filled_circle.
  void aacircle(int x, int y, int r, Rgb c);
  void filled_circle(int x, int y, int r, Rgb c);
  // pygame-ce 2.5's pygame.draw (see the top of this file).
  // pygame.draw.rect(surface, colour, (x, y, w, h)) filled (width 0): SDL_FillRect, clipped.
  void draw_rect(int x, int y, int w, int h, Rgb c);
  // pygame.draw.rect(surface, colour, (x, y, w, h), width): the outline `width` pixels thick when
  // twice that is less than the visible rect's sides, else the rect filled.
  void draw_rect_outline(int x, int y, int w, int h, int width, Rgb c);
  // pygame.draw.line(surface, colour, start, end) with width 1: Bresenham from start to end, each
  // pixel dropped when outside (no clipping of the line itself).
  void draw_line(int x1, int y1, int x2, int y2, Rgb c);
  // pygame.draw.line / lines with width > 1: Bresenham, each step a span `width` thick across
  // the line (rows for a steep line, columns for a flat one).
  void draw_line_wide(int x1, int y1, int x2, int y2, int width, Rgb c);
  // pygame.draw.polygon(surface, colour, points) filled: scanlines with floor / ceil crossings for
  // more than three points, pygame-ce's triangle fill for three.
  void draw_polygon(const Point* pts, int n, Rgb c);
  // pygame.draw.circle(surface, colour, center, radius) filled.
  void draw_circle(int x, int y, int r, Rgb c);
  // pygame.draw.circle(surface, colour, center, radius, 1): the midpoint circle's eight octants,
  // one pixel each (pygame-ce's thin ring), pixels off the surface dropped.
  void draw_circle_ring(int x, int y, int r, Rgb c);
  // pygame.draw.aaline(surface, colour, start, end): one segment with both end points.
  void draw_aaline(FPoint a, FPoint b, Rgb c) { ce_aaline(a.x, a.y, b.x, b.y, false, false, false, c); }
  // pygame.draw.aalines(surface, colour, closed, points): pygame-ce's Wu lines on float points,
  // with its end-point rules between consecutive segments.
  void draw_aalines(const FPoint* pts, int n, bool closed, Rgb c);

  // surface.blit(img, (x, y)) of a per-pixel-alpha image (after pygame.transform.flip(img,
  // flip_x, flip_y)) onto this opaque canvas: dst + (((src - dst) * a + src) >> 8) per channel.
  void blit_alpha(const RgbaImage& img, int x, int y, bool flip_x, bool flip_y);

 private:
  bool inside(int x, int y) const { return x >= x0_ && x < w_ && y >= 0 && y < h_; }
  uint8_t* at(int x, int y) const {
    const int row = flip_y_ ? h_ - 1 - y : y;
    return px_ + (static_cast<size_t>(row) * static_cast<size_t>(w_ - x0_) + static_cast<size_t>(x - x0_)) * 3;
  }
  void put(int x, int y, Rgb c);                    // opaque
  void put_weighted(int x, int y, Rgb c, int weight);  // anti-aliased pixel, weight 0..255
  void aa_edge(int x1, int y1, int x2, int y2, Rgb c);
  void put_mixed(int x, int y, Rgb c, float brightness);  // pygame.draw's anti-aliased pixel
  void span(int x1, int x2, int y, Rgb c);               // pygame-ce's clipped horizontal line
  void filltri(const Point* pts, Rgb c);
  void ce_aaline(float x1, float y1, float x2, float y2, bool skip_first, bool skip_second, bool extra_pixel, Rgb c);

  uint8_t* px_;
  int w_, h_;
  int x0_;  // the first column kept
  bool flip_y_;
  std::vector<int> crossings_;  // filled_polygon's per-scanline scratch
};

}  // namespace envhive::pygame
