// pygame.transform for RGBA images (Pendulum's torque arrow, the toy-text sprites): pygame's
// smoothscale (area-averaging shrink) and its per-pixel-alpha blit onto an opaque surface.
#pragma once

#include <cstdint>
#include <vector>

#include "../../core/render.h"

namespace envhive::pygame {

// Images are envhive::RgbaImage: four bytes per pixel, rows top first. The filters treat the four
// channels alike; Canvas::blit_alpha reads them as R, G, B, A.

// pygame has two arithmetics for smoothscale that round differently (by 1 in some pixels): its
// x86 SIMD filters ("SSE", the default on x86-64: 2.14 fixed point, 16-bit lanes, saturating
// pack) and its portable C filters ("GENERIC", 16.16 fixed point; what it uses elsewhere).
enum class SmoothscaleArith { kSse, kGeneric };
// pygame's default on this machine: SSE on x86-64, GENERIC otherwise.
SmoothscaleArith default_smoothscale_arith();

// pygame.transform.smoothscale(img, (w, h)) for w <= img.width and h <= img.height: area-averaging box
// filters, first along x into a temporary image, then along y, with pygame's integer rounding
// (including its 16-bit accumulators, which wrap). An unchanged axis is copied.
RgbaImage smoothscale_shrink(const RgbaImage& src, int w, int h,
                             SmoothscaleArith arith = default_smoothscale_arith());

// pygame.transform.smoothscale of an opaque RGB surface (h x w x 3, rows top first) to dw x dh
// (a shrink on both axes), into `dst` (dh x dw x 3).
void smoothscale_rgb(const uint8_t* src, int w, int h, uint8_t* dst, int dw, int dh,
                     SmoothscaleArith arith = default_smoothscale_arith());

// pygame.transform.scale(img, (w, h)): SDL's nearest-neighbour stretch. Output pixel (x, y) is
// source pixel ((x * incx + incx / 2) >> 16, (y * incy + incy / 2) >> 16), inc = (src << 16) / dst.
RgbaImage scale_nearest(const RgbaImage& src, int w, int h);

}  // namespace envhive::pygame
