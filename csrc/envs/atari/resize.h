// cv::resize for uint8 images, bit for bit, without OpenCV: INTER_AREA and INTER_LINEAR exactly as
// OpenCV computes them for CV_8U (opencv/modules/imgproc/src/resize.cpp), so observations equal
// those of EnvPool, ale-py and Gymnasium's AtariPreprocessing, which all call cv::resize.
//
// The images are planar: each channel is resized on its own. That is exact because OpenCV applies
// the same operations, in the same order, to every channel of an interleaved pixel.
//
// OpenCV's paths for downscaling uint8 (scale = src / dst, per axis, as OpenCV computes it):
//  - both scales integers ("area fast"): mean of each block; 2x2 blocks as (sum + 2) >> 2,
//    other blocks as round(float(sum) * (1.f / area));
//  - INTER_AREA, both scales >= 1: a float accumulation of pixel * coverage weights, first along
//    each source row, then down the rows, rounded half to even;
//  - INTER_LINEAR (and INTER_AREA when upscaling along an axis): 11-bit fixed point weights; the
//    vertical pass is OpenCV's SIMD formula (VResizeLinearVec_32s8u: each row's value shifted
//    right by 4, multiplied by its weight keeping the high 16 bits, summed, then (v + 2) >> 2),
//    which OpenCV 4.10 to 5.0 apply to whole rows (verified against cv2 by tests/families/atari/test_atari_frames.py).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace envhive::atari {

class Resizer {
 public:
  Resizer() = default;
  Resizer(int src_h, int src_w, int dst_h, int dst_w, bool inter_area)
      : sh_(src_h), sw_(src_w), dh_(dst_h), dw_(dst_w) {
    if (src_h < 1 || src_w < 1 || dst_h < 1 || dst_w < 1) throw std::invalid_argument("resize: empty image");
    if (dst_h == src_h && dst_w == src_w) {
      mode_ = Mode::kCopy;
      return;
    }
    // cv::resize: inv_scale = dsize / ssize; hal::resize: scale = 1 / inv_scale (both double).
    const double inv_x = static_cast<double>(dst_w) / src_w, inv_y = static_cast<double>(dst_h) / src_h;
    const double scale_x = 1. / inv_x, scale_y = 1. / inv_y;
    const int iscale_x = round_int(scale_x), iscale_y = round_int(scale_y);
    const bool area_fast = std::abs(scale_x - iscale_x) < 2.220446049250313e-16 &&
                           std::abs(scale_y - iscale_y) < 2.220446049250313e-16;
    bool area = inter_area;
    if (!area && area_fast && iscale_x == 2 && iscale_y == 2) area = true;  // OpenCV's shortcut
    if (area && scale_x >= 1 && scale_y >= 1) {
      if (area_fast) {
        mode_ = Mode::kAreaFast;
        ix_ = iscale_x;
        iy_ = iscale_y;
      } else {
        mode_ = Mode::kArea;
        build_area(scale_x, scale_y);
      }
      return;
    }
    mode_ = Mode::kLinear;
    build_linear(area, scale_x, scale_y, inv_x, inv_y);
  }

  // Resize one plane of src_h x src_w bytes into dst (dst_h x dst_w bytes).
  void run(const uint8_t* src, uint8_t* dst) {
    switch (mode_) {
      case Mode::kCopy: std::memcpy(dst, src, static_cast<size_t>(sh_) * sw_); break;
      case Mode::kAreaFast: run_area_fast(src, dst); break;
      case Mode::kArea: run_area(src, dst); break;
      case Mode::kLinear: run_linear(src, dst); break;
    }
  }

 private:
  enum class Mode { kCopy, kAreaFast, kArea, kLinear };

  static int round_int(double v) { return static_cast<int>(std::nearbyint(v)); }
  // cvRound(float) then saturate_cast<uchar>: round half to even, clamp to [0, 255].
  static uint8_t sat_u8(float v) {
#if defined(__SSE2__)
    const int i = _mm_cvtss_si32(_mm_set_ss(v));  // what cvRound compiles to
#else
    const int i = static_cast<int>(std::nearbyintf(v));
#endif
    return static_cast<uint8_t>(std::clamp(i, 0, 255));
  }

  // ---- INTER_AREA, scales >= 1 ----------------------------------------------------------------
  // OpenCV's table (computeResizeAreaTab): for each destination cell, the source indices it
  // covers and their coverage weights, a partial cell first, whole cells, a partial cell last.
  struct Taps {
    std::vector<int> first;      // per destination index: first source index
    std::vector<int> count;      // per destination index: number of source indices
    std::vector<float> weight;   // per destination index: `max_taps` weights, zero-padded
    int max_taps = 0;
  };
  static Taps area_taps(int ssize, int dsize, double scale) {
    std::vector<std::vector<std::pair<int, float>>> cells(static_cast<size_t>(dsize));
    for (int dx = 0; dx < dsize; ++dx) {
      const double fsx1 = dx * scale, fsx2 = fsx1 + scale;
      const double cell_width = std::min(scale, ssize - fsx1);
      int sx1 = static_cast<int>(std::ceil(fsx1)), sx2 = static_cast<int>(std::floor(fsx2));
      sx2 = std::min(sx2, ssize - 1);
      sx1 = std::min(sx1, sx2);
      auto& c = cells[static_cast<size_t>(dx)];
      if (sx1 - fsx1 > 1e-3) c.emplace_back(sx1 - 1, static_cast<float>((sx1 - fsx1) / cell_width));
      for (int sx = sx1; sx < sx2; ++sx) c.emplace_back(sx, static_cast<float>(1.0 / cell_width));
      if (fsx2 - sx2 > 1e-3)
        c.emplace_back(sx2, static_cast<float>(std::min(std::min(fsx2 - sx2, 1.), cell_width) / cell_width));
    }
    Taps t;
    for (const auto& c : cells) t.max_taps = std::max(t.max_taps, static_cast<int>(c.size()));
    for (const auto& c : cells) {
      t.first.push_back(c.empty() ? 0 : c.front().first);
      t.count.push_back(static_cast<int>(c.size()));
      for (int k = 0; k < t.max_taps; ++k) t.weight.push_back(k < static_cast<int>(c.size()) ? c[k].second : 0.f);
      for (size_t k = 1; k < c.size(); ++k)
        if (c[k].first != c[0].first + static_cast<int>(k)) throw std::logic_error("resize: non-contiguous taps");
    }
    return t;
  }

  void build_area(double scale_x, double scale_y) {
    xt_ = area_taps(sw_, dw_, scale_x);
    yt_ = area_taps(sh_, dh_, scale_y);
    // One spare zero-weight column past the row end: padded taps may read it (value * 0 = +0).
    rowf_.assign(static_cast<size_t>(sw_ + xt_.max_taps + 1), 0.f);
    buf_.assign(static_cast<size_t>(dw_), 0.f);
#if defined(__SSE2__)
    // Four source rows at a time: cols_ holds them transposed (4 floats per source column, zero
    // columns past the end for padded taps), wv_ the horizontal weights broadcast to 4 lanes,
    // hbuf_ a ring of the last filtered source rows (dwp_ floats each, dwp_ = dw rounded up to 4):
    // a destination row is finished as soon as its last source row is filtered, and the rows it
    // reads are at most max_taps + 3 rows back.
    dwp_ = (dw_ + 3) & ~3;
    cols_.assign(static_cast<size_t>(sw_ + xt_.max_taps + 1) * 4, 0.f);
    wv_.resize(xt_.weight.size() * 4);
    for (size_t i = 0; i < xt_.weight.size(); ++i)
      for (size_t l = 0; l < 4; ++l) wv_[4 * i + l] = xt_.weight[i];
    tmp_.assign(static_cast<size_t>(dwp_) * 5, 0.f);  // 4 rows, transposed; 1 scratch row
    hrows_ = yt_.max_taps + 4;
    hbuf_.assign(static_cast<size_t>(hrows_) * dwp_, 0.f);
    sum_.assign(static_cast<size_t>(dwp_), 0.f);
#else
    sum_.assign(static_cast<size_t>(dw_), 0.f);
#endif
  }

  // Horizontal pass of one source row: buf[dx] = ((0 + s0 * w0) + s1 * w1) + ... in OpenCV's
  // order. Padding weights are zero and come last, and x + (+0) == x, so the sums are exact.
  void hpass_area(const uint8_t* row) {
    for (int x = 0; x < sw_; ++x) rowf_[static_cast<size_t>(x)] = static_cast<float>(row[x]);
    const int taps = xt_.max_taps;
    const float* w = xt_.weight.data();
    const int* first = xt_.first.data();
    float* buf = buf_.data();
    const float* f = rowf_.data();
    if (taps == 3) {
      for (int dx = 0; dx < dw_; ++dx) {
        const float* s = f + first[dx];
        const float* wd = w + 3 * dx;
        float acc = 0.f + s[0] * wd[0];
        acc = acc + s[1] * wd[1];
        buf[dx] = acc + s[2] * wd[2];
      }
    } else {
      for (int dx = 0; dx < dw_; ++dx) {
        const float* s = f + first[dx];
        const float* wd = w + static_cast<size_t>(taps) * dx;
        float acc = 0.f;
        for (int k = 0; k < taps; ++k) acc = acc + s[k] * wd[k];
        buf[dx] = acc;
      }
    }
  }

#if defined(__SSE2__)
  // The same sums as the scalar path below, four source rows per SIMD lane group: every lane
  // performs OpenCV's operations on its own row in OpenCV's order (products, then additions
  // from the first tap to the last; 0 + p == p since no product is -0), so results are equal.
  void run_area(const uint8_t* src, uint8_t* dst) {
    const int taps = xt_.max_taps;
    const __m128i zero = _mm_setzero_si128();
    float* cols = cols_.data();
    float* tmp = tmp_.data();
    int dy = 0;  // the next destination row to finish
    for (int r0 = 0; r0 < sh_; r0 += 4) {
      const uint8_t* rows[4];
      for (int i = 0; i < 4; ++i) rows[i] = src + static_cast<size_t>(std::min(r0 + i, sh_ - 1)) * sw_;
      int c = 0;
      for (; c + 16 <= sw_; c += 16) {  // transpose 4 rows x 16 bytes into 16 columns of 4 floats
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[0] + c));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[1] + c));
        const __m128i cc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[2] + c));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[3] + c));
        const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        const __m128i cd_lo = _mm_unpacklo_epi8(cc, d), cd_hi = _mm_unpackhi_epi8(cc, d);
        const __m128i q[4] = {_mm_unpacklo_epi16(ab_lo, cd_lo), _mm_unpackhi_epi16(ab_lo, cd_lo),
                              _mm_unpacklo_epi16(ab_hi, cd_hi), _mm_unpackhi_epi16(ab_hi, cd_hi)};
        for (int g = 0; g < 4; ++g) {
          const __m128i lo = _mm_unpacklo_epi8(q[g], zero), hi = _mm_unpackhi_epi8(q[g], zero);
          float* out = cols + 4 * static_cast<size_t>(c + 4 * g);
          _mm_storeu_ps(out, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
          _mm_storeu_ps(out + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
          _mm_storeu_ps(out + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
          _mm_storeu_ps(out + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
        }
      }
      for (; c < sw_; ++c)
        for (int i = 0; i < 4; ++i) cols[4 * static_cast<size_t>(c) + i] = static_cast<float>(rows[i][c]);
      const int* first = xt_.first.data();
      const float* wv = wv_.data();
      if (taps == 3) {  // 210x160 -> 84x84 and most downscales by less than 2
        for (int dx = 0; dx < dw_; ++dx) {
          const float* x = cols + 4 * static_cast<size_t>(first[dx]);
          const float* w = wv + 12 * static_cast<size_t>(dx);
          __m128 acc = _mm_mul_ps(_mm_loadu_ps(x), _mm_loadu_ps(w));
          acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(x + 4), _mm_loadu_ps(w + 4)));
          acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(x + 8), _mm_loadu_ps(w + 8)));
          _mm_storeu_ps(tmp + 4 * static_cast<size_t>(dx), acc);
        }
      } else {
        for (int dx = 0; dx < dw_; ++dx) {
          const float* x = cols + 4 * static_cast<size_t>(first[dx]);
          const float* w = wv + 4 * static_cast<size_t>(taps) * dx;
          __m128 acc = _mm_mul_ps(_mm_loadu_ps(x), _mm_loadu_ps(w));
          for (int k = 1; k < taps; ++k)
            acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(x + 4 * k), _mm_loadu_ps(w + 4 * k)));
          _mm_storeu_ps(tmp + 4 * static_cast<size_t>(dx), acc);
        }
      }
      const int rows_done = std::min(r0 + 4, sh_);
      float* h[4];  // rows past the image end go to a scratch row
      for (int i = 0; i < 4; ++i) h[i] = r0 + i < sh_ ? hrow(r0 + i) : tmp_.data() + 4 * static_cast<size_t>(dwp_);
      for (int dx = 0; dx < dwp_; dx += 4) {  // [dx][row] -> [row][dx], into the ring
        const float* t = tmp + 4 * static_cast<size_t>(dx);
        __m128 t0 = _mm_loadu_ps(t), t1 = _mm_loadu_ps(t + 4), t2 = _mm_loadu_ps(t + 8), t3 = _mm_loadu_ps(t + 12);
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        _mm_storeu_ps(h[0] + dx, t0);
        _mm_storeu_ps(h[1] + dx, t1);
        _mm_storeu_ps(h[2] + dx, t2);
        _mm_storeu_ps(h[3] + dx, t3);
      }
      while (dy < dh_ && yt_.first[static_cast<size_t>(dy)] + yt_.count[static_cast<size_t>(dy)] <= rows_done)
        vpass_area(dy++, dst);
    }
  }

  float* hrow(int r) { return hbuf_.data() + static_cast<size_t>(r % hrows_) * dwp_; }

  void vpass_area(int dy, uint8_t* dst) {
    const int sy0 = yt_.first[static_cast<size_t>(dy)];
    const int n = yt_.count[static_cast<size_t>(dy)];
    const float* beta = yt_.weight.data() + static_cast<size_t>(yt_.max_taps) * dy;
    float* sum = sum_.data();
    const __m128 b0 = _mm_set1_ps(beta[0]);
    const float* h0 = hrow(sy0);
    for (int dx = 0; dx < dwp_; dx += 4) _mm_storeu_ps(sum + dx, _mm_mul_ps(b0, _mm_loadu_ps(h0 + dx)));
    for (int k = 1; k < n; ++k) {
      const __m128 bk = _mm_set1_ps(beta[k]);
      const float* h = hrow(sy0 + k);
      for (int dx = 0; dx < dwp_; dx += 4)
        _mm_storeu_ps(sum + dx, _mm_add_ps(_mm_loadu_ps(sum + dx), _mm_mul_ps(bk, _mm_loadu_ps(h + dx))));
    }
    store_rounded(sum, dst + static_cast<size_t>(dy) * dw_, dw_);
  }
#else
  void run_area(const uint8_t* src, uint8_t* dst) {
    const int ytaps = yt_.max_taps;
    last_row_ = -1;
    for (int dy = 0; dy < dh_; ++dy) {
      const int sy0 = yt_.first[static_cast<size_t>(dy)];
      const int n = yt_.count[static_cast<size_t>(dy)];
      const float* beta = yt_.weight.data() + static_cast<size_t>(ytaps) * dy;
      float* sum = sum_.data();
      const float* buf = buf_.data();
      for (int k = 0; k < n; ++k) {
        // A source row straddling two destination rows is filtered once: it is the last row of
        // one and the first of the next, so buf_ still holds it.
        if (sy0 + k != last_row_) {
          hpass_area(src + static_cast<size_t>(sy0 + k) * sw_);
          last_row_ = sy0 + k;
        }
        const float b = beta[k];
        if (k == 0) {
          for (int dx = 0; dx < dw_; ++dx) sum[dx] = b * buf[dx];
        } else {
          for (int dx = 0; dx < dw_; ++dx) sum[dx] = sum[dx] + b * buf[dx];
        }
      }
      store_rounded(sum, dst + static_cast<size_t>(dy) * dw_, dw_);
    }
  }
#endif

  static void store_rounded(const float* v, uint8_t* out, int n) {
    int i = 0;
#if defined(__SSE2__)
    // cvtps2dq rounds half to even in the default MXCSR mode, like cvRound; packs saturate.
    for (; i + 16 <= n; i += 16) {
      const __m128i a = _mm_cvtps_epi32(_mm_loadu_ps(v + i));
      const __m128i b = _mm_cvtps_epi32(_mm_loadu_ps(v + i + 4));
      const __m128i c = _mm_cvtps_epi32(_mm_loadu_ps(v + i + 8));
      const __m128i d = _mm_cvtps_epi32(_mm_loadu_ps(v + i + 12));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                       _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
    }
#endif
    for (; i < n; ++i) out[i] = sat_u8(v[i]);
  }

  // ---- INTER_AREA, integer scales -------------------------------------------------------------
  void run_area_fast(const uint8_t* src, uint8_t* dst) const {
    const int area = ix_ * iy_;
    const float scale = 1.f / static_cast<float>(area);
    for (int dy = 0; dy < dh_; ++dy) {
      const uint8_t* s0 = src + static_cast<size_t>(dy) * iy_ * sw_;
      uint8_t* d = dst + static_cast<size_t>(dy) * dw_;
      if (ix_ == 2 && iy_ == 2) {
        const uint8_t* s1 = s0 + sw_;
        for (int dx = 0; dx < dw_; ++dx)
          d[dx] = static_cast<uint8_t>((s0[2 * dx] + s0[2 * dx + 1] + s1[2 * dx] + s1[2 * dx + 1] + 2) >> 2);
        continue;
      }
      for (int dx = 0; dx < dw_; ++dx) {
        int sum = 0;
        for (int sy = 0; sy < iy_; ++sy)
          for (int sx = 0; sx < ix_; ++sx) sum += s0[static_cast<size_t>(sy) * sw_ + dx * ix_ + sx];
        d[dx] = sat_u8(static_cast<float>(sum) * scale);
      }
    }
  }

  // ---- INTER_LINEAR (and INTER_AREA upscaling) ------------------------------------------------
  static constexpr int kCoefBits = 11, kCoefScale = 1 << kCoefBits;
  static int16_t coef(float v) {  // saturate_cast<short>(v * INTER_RESIZE_COEF_SCALE)
    const int i = static_cast<int>(std::nearbyintf(v * static_cast<float>(kCoefScale)));
    return static_cast<int16_t>(std::clamp(i, -32768, 32767));
  }

  void build_linear(bool area_mode, double scale_x, double scale_y, double inv_x, double inv_y) {
    xofs_.resize(static_cast<size_t>(dw_));
    alpha_.resize(static_cast<size_t>(dw_) * 2);
    xmax_ = dw_;
    for (int dx = 0; dx < dw_; ++dx) {
      float fx;
      int sx;
      if (!area_mode) {
        fx = static_cast<float>((dx + 0.5) * scale_x - 0.5);
        sx = static_cast<int>(std::floor(fx));
        fx -= static_cast<float>(sx);
      } else {
        sx = static_cast<int>(std::floor(dx * scale_x));
        fx = static_cast<float>((dx + 1) - (sx + 1) * inv_x);
        fx = fx <= 0 ? 0.f : fx - static_cast<float>(static_cast<int>(std::floor(fx)));
      }
      if (sx < 0) fx = 0, sx = 0;
      if (sx + 1 >= sw_) {
        xmax_ = std::min(xmax_, dx);
        if (sx >= sw_ - 1) fx = 0, sx = sw_ - 1;
      }
      xofs_[static_cast<size_t>(dx)] = sx;
      alpha_[2 * static_cast<size_t>(dx)] = coef(1.f - fx);
      alpha_[2 * static_cast<size_t>(dx) + 1] = coef(fx);
    }
    yofs_.resize(static_cast<size_t>(dh_) * 2);
    beta_.resize(static_cast<size_t>(dh_) * 2);
    for (int dy = 0; dy < dh_; ++dy) {
      float fy;
      int sy;
      if (!area_mode) {
        fy = static_cast<float>((dy + 0.5) * scale_y - 0.5);
        sy = static_cast<int>(std::floor(fy));
        fy -= static_cast<float>(sy);
      } else {
        sy = static_cast<int>(std::floor(dy * scale_y));
        fy = static_cast<float>((dy + 1) - (sy + 1) * inv_y);
        fy = fy <= 0 ? 0.f : fy - static_cast<float>(static_cast<int>(std::floor(fy)));
      }
      // resizeGeneric_ clips the two source rows into the image; the weights are kept as computed.
      yofs_[2 * static_cast<size_t>(dy)] = std::clamp(sy, 0, sh_ - 1);
      yofs_[2 * static_cast<size_t>(dy) + 1] = std::clamp(sy + 1, 0, sh_ - 1);
      beta_[2 * static_cast<size_t>(dy)] = coef(1.f - fy);
      beta_[2 * static_cast<size_t>(dy) + 1] = coef(fy);
    }
    rows_.assign(static_cast<size_t>(dw_) * 2, 0);
  }

  void hpass_linear(const uint8_t* row, int32_t* out) const {
    for (int dx = 0; dx < xmax_; ++dx) {
      const int sx = xofs_[static_cast<size_t>(dx)];
      out[dx] = row[sx] * alpha_[2 * static_cast<size_t>(dx)] + row[sx + 1] * alpha_[2 * static_cast<size_t>(dx) + 1];
    }
    for (int dx = xmax_; dx < dw_; ++dx) out[dx] = row[xofs_[static_cast<size_t>(dx)]] * kCoefScale;
  }

  void run_linear(const uint8_t* src, uint8_t* dst) {
    int32_t* r0 = rows_.data();
    int32_t* r1 = rows_.data() + dw_;
    for (int dy = 0; dy < dh_; ++dy) {
      hpass_linear(src + static_cast<size_t>(yofs_[2 * static_cast<size_t>(dy)]) * sw_, r0);
      hpass_linear(src + static_cast<size_t>(yofs_[2 * static_cast<size_t>(dy) + 1]) * sw_, r1);
      const int b0 = beta_[2 * static_cast<size_t>(dy)], b1 = beta_[2 * static_cast<size_t>(dy) + 1];
      uint8_t* d = dst + static_cast<size_t>(dy) * dw_;
      for (int dx = 0; dx < dw_; ++dx) {
        // v_mul_hi(v_pack(S >> 4), b) per row, summed, then v_rshr_pack_u<2>. (OpenCV's scalar
        // (S0 * b0 + S1 * b1 + 2^21) >> 22 differs in the last bit; cv2 does not use it.)
        const int v = ((((r0[dx] >> 4) * b0) >> 16) + (((r1[dx] >> 4) * b1) >> 16) + 2) >> 2;
        d[dx] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      }
    }
  }

  Mode mode_ = Mode::kCopy;
  int sh_ = 0, sw_ = 0, dh_ = 0, dw_ = 0;
  int ix_ = 1, iy_ = 1;
  Taps xt_, yt_;
  std::vector<float> rowf_, buf_, sum_, cols_, wv_, tmp_, hbuf_;
  int dwp_ = 0, hrows_ = 0;
  std::vector<int> xofs_, yofs_;
  std::vector<int16_t> alpha_, beta_;
  int xmax_ = 0, last_row_ = -1;
  std::vector<int32_t> rows_;
};

}  // namespace envhive::atari
