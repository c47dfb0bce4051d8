#include "transform.h"

#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdexcept>

namespace envhive::pygame {

namespace {

// One axis of the area-averaging shrink. The source is `count` lines of `n_src` samples (each
// 4 channels); sample i of line j is at src[j * line_stride + i * sample_stride]. Output sample k
// averages the source samples under [k * space, (k + 1) * space), space = n_src / n_dst in 16.16;
// the partial samples at both ends weigh by the part covered.
void shrink_axis(const uint8_t* src, uint8_t* dst, int count, int n_src, int n_dst, size_t src_line,
                 size_t src_sample, size_t dst_line, size_t dst_sample) {
  const int space = static_cast<int>(0x10000LL * n_src / n_dst);
  const int recip = static_cast<int>(0x100000000LL / space);
  for (int j = 0; j < count; ++j) {
    uint16_t acc[4] = {0, 0, 0, 0};  // 16 bits, as pygame's (they wrap when a box covers > 257 samples)
    int left = space;                // what is left of the current output box, 16.16
    const uint8_t* s = src + static_cast<size_t>(j) * src_line;
    uint8_t* d = dst + static_cast<size_t>(j) * dst_line;
    for (int i = 0; i < n_src; ++i, s += src_sample) {
      if (left > 0x10000) {  // the whole sample is inside the box
        for (int c = 0; c < 4; ++c) acc[c] = static_cast<uint16_t>(acc[c] + s[c]);
        left -= 0x10000;
      } else {  // the box ends inside this sample: emit, and start the next box with the rest
        const int rest = 0x10000 - left;
        for (int c = 0; c < 4; ++c) {
          d[c] = static_cast<uint8_t>(((acc[c] + ((s[c] * left) >> 16)) * recip) >> 16);
          acc[c] = static_cast<uint16_t>((s[c] * rest) >> 16);
        }
        d += dst_sample;
        left = space - rest;
      }
    }
  }
}

// The same filter in pygame's SIMD arithmetic: 2.14 fixed point; products of (sample << 2) and
// 14-bit weights keep their high 16 bits (pmulhuw); sums wrap at 16 bits; the result saturates
// as a signed 16-bit value into 0..255 (packuswb).
void shrink_axis_simd(const uint8_t* src, uint8_t* dst, int count, int n_src, int n_dst, size_t src_line,
                      size_t src_sample, size_t dst_line, size_t dst_sample) {
  const int space = 0x4000 * n_src / n_dst;
  const uint32_t recip = static_cast<uint32_t>(0x40000000 / space) & 0xFFFFu;
  auto mulhi = [](uint32_t a, uint32_t b) { return static_cast<uint16_t>((a * b) >> 16); };
  for (int j = 0; j < count; ++j) {
    uint16_t acc[4] = {0, 0, 0, 0};
    uint32_t left = static_cast<uint32_t>(space);
    const uint8_t* s = src + static_cast<size_t>(j) * src_line;
    uint8_t* d = dst + static_cast<size_t>(j) * dst_line;
    for (int i = 0; i < n_src; ++i, s += src_sample) {
      if (left > 0x4000) {
        for (int c = 0; c < 4; ++c) acc[c] = static_cast<uint16_t>(acc[c] + s[c]);
        left -= 0x4000;
      } else {
        const uint32_t in_box = left & 0xFFFFu, rest = (0x4000u - in_box) & 0xFFFFu;
        for (int c = 0; c < 4; ++c) {
          const uint32_t s4 = static_cast<uint32_t>(s[c]) << 2;
          const uint16_t sum = static_cast<uint16_t>(acc[c] + mulhi(s4, in_box));
          const int16_t v = static_cast<int16_t>(mulhi(sum, recip));
          d[c] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
          acc[c] = mulhi(s4, rest);
        }
        d += dst_sample;
        left = left + static_cast<uint32_t>(space) - 0x4000u;
      }
    }
  }
}

}  // namespace

SmoothscaleArith default_smoothscale_arith() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
  return SmoothscaleArith::kSse;
#else
  return SmoothscaleArith::kGeneric;
#endif
}

RgbaImage smoothscale_shrink(const RgbaImage& src, int w, int h, SmoothscaleArith arith) {
  const auto shrink = arith == SmoothscaleArith::kSse ? shrink_axis_simd : shrink_axis;
  if (w < 0 || h < 0 || w > src.width || h > src.height) throw std::invalid_argument("smoothscale_shrink only shrinks");
  RgbaImage out;
  out.width = w;
  out.height = h;
  out.rgba.assign(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 0);
  if (w == 0 || h == 0) return out;
  // x pass (src.height lines of src.width samples) into a w x src.height image
  RgbaImage tmp;
  const RgbaImage* cur = &src;
  if (w != src.width) {
    tmp.width = w;
    tmp.height = src.height;
    tmp.rgba.assign(static_cast<size_t>(w) * static_cast<size_t>(src.height) * 4, 0);
    shrink(src.rgba.data(), tmp.rgba.data(), src.height, src.width, w, static_cast<size_t>(src.width) * 4, 4,
                static_cast<size_t>(w) * 4, 4);
    cur = &tmp;
  }
  // y pass (w columns of src.height samples)
  if (h != src.height) {
    shrink(cur->rgba.data(), out.rgba.data(), w, src.height, h, 4, static_cast<size_t>(w) * 4, 4,
                static_cast<size_t>(w) * 4);
  } else {
    out.rgba = cur->rgba;
  }
  return out;
}

namespace {

#if defined(__SSE2__)
constexpr int kPackedRun = 10;  // packed pixels summed from 32 bytes
// masks[n][c]: the bytes of channel c among the first n packed pixels of 32 bytes.
struct PackedMasks {
  __m128i lo[kPackedRun + 1][3], hi[kPackedRun + 1][3];
};
const PackedMasks& packed_masks() {
  static const PackedMasks masks = [] {
    PackedMasks m;
    for (int n = 0; n <= kPackedRun; ++n)
      for (int c = 0; c < 3; ++c) {
        alignas(16) uint8_t bytes[32];
        for (int j = 0; j < 32; ++j) bytes[j] = (j < 3 * n && j % 3 == c) ? 0xFF : 0;
        m.lo[n][c] = _mm_load_si128(reinterpret_cast<const __m128i*>(bytes));
        m.hi[n][c] = _mm_load_si128(reinterpret_cast<const __m128i*>(bytes + 16));
      }
    return m;
  }();
  return masks;
}
#endif

// shrink_axis_simd's arithmetic, planned once per axis and run over three channels: which source
// samples each output box adds whole, and the sample it ends in with its weights. A box's sum
// (under 3,400 for CarRacing's 10:1 boxes) is kept in 32 bits; pygame's 16-bit lanes hold it mod
// 65536, which the cast to uint16 reproduces.
struct ShrinkPlan {
  std::vector<int> edge;                // the sample output k ends in
  std::vector<uint32_t> in_box, rest;   // its part in box k, and in box k + 1
  uint32_t recip = 0;

  ShrinkPlan(int n_src, int n_dst) {
    const int space = 0x4000 * n_src / n_dst;
    recip = static_cast<uint32_t>(0x40000000 / space) & 0xFFFFu;
    uint32_t left = static_cast<uint32_t>(space);
    for (int i = 0; i < n_src && static_cast<int>(edge.size()) < n_dst; ++i) {
      if (left > 0x4000) {
        left -= 0x4000;
      } else {
        edge.push_back(i);
        in_box.push_back(left & 0xFFFFu);
        rest.push_back((0x4000u - (left & 0xFFFFu)) & 0xFFFFu);
        left = left + static_cast<uint32_t>(space) - 0x4000u;
      }
    }
  }

  // The y pass over whole rows of `lanes` bytes at once (every lane is a channel of a column, and
  // runs the same plan), row by row so the compiler vectorizes the sums.
  void run_rows(const uint8_t* s, size_t lanes, uint8_t* d) const {
    auto mulhi = [](uint32_t a, uint32_t b) { return (a * b) >> 16; };
    thread_local std::vector<uint32_t> sum;
    sum.assign(lanes, 0);
    int i = 0;
    for (size_t k = 0; k < edge.size(); ++k, d += lanes) {
      for (; i < edge[k]; ++i) {
        const uint8_t* row = s + static_cast<size_t>(i) * lanes;
        for (size_t l = 0; l < lanes; ++l) sum[l] += row[l];
      }
      const uint8_t* row = s + static_cast<size_t>(i) * lanes;
      ++i;
      const uint32_t in = in_box[k], out = rest[k];
      for (size_t l = 0; l < lanes; ++l) {
        const uint32_t s4 = static_cast<uint32_t>(row[l]) << 2;
        const uint16_t total = static_cast<uint16_t>(sum[l] + mulhi(s4, in));
        const int16_t v = static_cast<int16_t>(mulhi(total, recip));
        d[l] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
        sum[l] = mulhi(s4, out) & 0xFFFFu;  // the next box starts with this sample's rest
      }
    }
  }

  // One line: n_dst outputs of 3 channels from samples `stride` bytes apart. `end`: the first
  // byte after the source (packed pixels, stride 3, are summed 32 bytes at a time when that many
  // are readable).
  void run(const uint8_t* s, size_t stride, uint8_t* d, size_t dst_stride, const uint8_t* end) const {
    auto mulhi = [](uint32_t a, uint32_t b) { return (a * b) >> 16; };
    uint32_t carry[3] = {0, 0, 0};
    int i = 0;
#if defined(__SSE2__)
    const PackedMasks& m = packed_masks();
#endif
    for (size_t k = 0; k < edge.size(); ++k, d += dst_stride) {
      uint32_t sum[3] = {carry[0], carry[1], carry[2]};
#if defined(__SSE2__)
      // The whole samples of a box in one go: channel c of up to ten packed pixels is every third
      // byte of 32 (masked), summed by psadbw.
      const int count = edge[k] - i;
      const uint8_t* run = s + static_cast<size_t>(i) * stride;
      if (stride == 3 && count <= kPackedRun && run + 32 <= end) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(run));
        const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(run + 16));
        const __m128i zero = _mm_setzero_si128();
        for (int c = 0; c < 3; ++c) {
          const __m128i a = _mm_sad_epu8(_mm_and_si128(lo, m.lo[count][c]), zero);
          const __m128i b = _mm_sad_epu8(_mm_and_si128(hi, m.hi[count][c]), zero);
          const __m128i t = _mm_add_epi32(a, b);
          sum[c] += static_cast<uint32_t>(_mm_cvtsi128_si32(t) + _mm_cvtsi128_si32(_mm_srli_si128(t, 8)));
        }
        i = edge[k];
      }
#endif
      for (; i < edge[k]; ++i) {
        const uint8_t* p = s + static_cast<size_t>(i) * stride;
        sum[0] += p[0];
        sum[1] += p[1];
        sum[2] += p[2];
      }
      const uint8_t* p = s + static_cast<size_t>(i) * stride;
      ++i;
      for (int c = 0; c < 3; ++c) {
        const uint32_t s4 = static_cast<uint32_t>(p[c]) << 2;
        const uint16_t total = static_cast<uint16_t>(sum[c] + mulhi(s4, in_box[k]));
        const int16_t v = static_cast<int16_t>(mulhi(total, recip));
        d[c] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
        carry[c] = mulhi(s4, rest[k]) & 0xFFFFu;
      }
    }
  }
};

}  // namespace

void smoothscale_rgb(const uint8_t* src, int w, int h, uint8_t* dst, int dw, int dh, SmoothscaleArith arith) {
  if (arith == SmoothscaleArith::kSse && dw < w && dh < h) {
    // x pass into an h x dw image, then y pass; each output's channels computed as shrink_axis_simd
    // does (tests/families/box2d/test_box2d_alignment.py compares CarRacing's observations with pygame's).
    thread_local std::vector<uint8_t> tmp;
    tmp.resize(static_cast<size_t>(h) * static_cast<size_t>(dw) * 3);
    const ShrinkPlan along_x(w, dw), along_y(h, dh);
    const uint8_t* src_end = src + static_cast<size_t>(w) * static_cast<size_t>(h) * 3;
    for (int y = 0; y < h; ++y)
      along_x.run(src + static_cast<size_t>(y) * static_cast<size_t>(w) * 3, 3,
                  tmp.data() + static_cast<size_t>(y) * static_cast<size_t>(dw) * 3, 3, src_end);
    along_y.run_rows(tmp.data(), static_cast<size_t>(dw) * 3, dst);
    return;
  }
  RgbaImage rgba;
  rgba.width = w;
  rgba.height = h;
  rgba.rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(&rgba.rgba[i * 4], src + i * 3, 3);
    rgba.rgba[i * 4 + 3] = 255;  // the surface's unused byte: filtered on its own lane, dropped
  }
  const RgbaImage out = smoothscale_shrink(rgba, dw, dh, arith);
  const size_t m = static_cast<size_t>(dw) * static_cast<size_t>(dh);
  for (size_t i = 0; i < m; ++i) std::memcpy(dst + i * 3, &out.rgba[i * 4], 3);
}

RgbaImage scale_nearest(const RgbaImage& src, int w, int h) {
  if (w < 0 || h < 0) throw std::invalid_argument("scale_nearest: negative size");
  RgbaImage out;
  out.width = w;
  out.height = h;
  if (w == 0 || h == 0) return out;  // pygame.transform.scale to an empty size: an empty surface (blits nothing)
  if (src.width <= 0 || src.height <= 0) throw std::invalid_argument("scale_nearest: empty image");
  out.rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  const uint32_t incx = (static_cast<uint32_t>(src.width) << 16) / static_cast<uint32_t>(w);
  const uint32_t incy = (static_cast<uint32_t>(src.height) << 16) / static_cast<uint32_t>(h);
  uint32_t posy = incy / 2;
  for (int y = 0; y < h; ++y, posy += incy) {
    const uint8_t* row = &src.rgba[static_cast<size_t>(posy >> 16) * static_cast<size_t>(src.width) * 4];
    uint8_t* d = &out.rgba[static_cast<size_t>(y) * static_cast<size_t>(w) * 4];
    uint32_t posx = incx / 2;
    for (int x = 0; x < w; ++x, posx += incx, d += 4) std::memcpy(d, row + static_cast<size_t>(posx >> 16) * 4, 4);
  }
  return out;
}

}  // namespace envhive::pygame
