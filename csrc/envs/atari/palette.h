// Palette index -> gray (or one of R, G, B) for a whole screen: the per-pixel table lookup of
// ALE's applyPaletteGrayscale/RGB, which is a tenth of a step's time when done byte by byte.
//
// The TIA only writes even palette indices (its colour registers drop bit 0), so the lookup is
// over 128 entries: with AVX-512 VBMI it is one two-table byte permute per 64 pixels, with AVX2 8
// byte shuffles of 16-entry tables per 32 pixels (the level is chosen at run time, simd.h). A
// chunk with an odd index goes through the plain table, so the result is ALE's for any input.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ENVHIVE_PALETTE_AVX2 1
#endif

namespace envhive::atari {

class PaletteLut {
 public:
  PaletteLut() = default;
  PaletteLut(const std::array<uint8_t, 256>& table, Simd simd) : table_(table), simd_(simd) {
    for (size_t j = 0; j < 128; ++j) evens_[j] = table[2 * j];
  }

  // dst = table[src]
  void apply(const uint8_t* src, uint8_t* dst, size_t n) const { run<false>(src, dst, n); }
  // dst = max(dst, table[src]): the max-pooling of two frames, fused with the second lookup.
  void apply_max(const uint8_t* src, uint8_t* dst, size_t n) const { run<true>(src, dst, n); }

 private:
  template <bool kMax>
  void run(const uint8_t* src, uint8_t* dst, size_t n) const {
    size_t i = 0;
#ifdef ENVHIVE_PALETTE_AVX2
    if (simd_ == Simd::kAvx512) i = run_avx512<kMax>(src, dst, n);
    if (simd_ >= Simd::kAvx2) i += run_avx2<kMax>(src + i, dst + i, n - i);
#endif
    const uint8_t* t = table_.data();
    for (; i < n; ++i) dst[i] = kMax ? std::max(dst[i], t[src[i]]) : t[src[i]];
  }

#ifdef ENVHIVE_PALETTE_AVX2
  // Whole 64-pixel chunks: the 128 even entries are two 64-byte tables, and vpermi2b picks from
  // them by bits 0-6 of (index >> 1). A chunk holding an odd index goes through the plain table.
  // Returns how many pixels were done.
  template <bool kMax>
  __attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t run_avx512(const uint8_t* src, uint8_t* dst,
                                                                          size_t n) const {
    const __m512i lo = _mm512_loadu_si512(evens_.data()), hi = _mm512_loadu_si512(evens_.data() + 64);
    const __m512i one = _mm512_set1_epi8(1), low7 = _mm512_set1_epi8(0x7f);
    const uint8_t* t = table_.data();
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      const __m512i p = _mm512_loadu_si512(src + i);
      if (_mm512_test_epi8_mask(p, one) != 0) {
        for (size_t j = i; j < i + 64; ++j) dst[j] = kMax ? std::max(dst[j], t[src[j]]) : t[src[j]];
        continue;
      }
      // A 16-bit shift moves the high byte's bit 0 into the low byte's bit 7: masked off.
      const __m512i idx = _mm512_and_si512(_mm512_srli_epi16(p, 1), low7);
      __m512i out = _mm512_permutex2var_epi8(lo, idx, hi);
      if (kMax) out = _mm512_max_epu8(out, _mm512_loadu_si512(dst + i));
      _mm512_storeu_si512(dst + i, out);
    }
    return i;
  }

  // Whole 32-pixel chunks; a chunk holding an odd index goes through the plain table instead.
  // Returns how many pixels were done.
  template <bool kMax>
  __attribute__((target("avx2"))) size_t run_avx2(const uint8_t* src, uint8_t* dst, size_t n) const {
    __m256i tables[8];
    for (int k = 0; k < 8; ++k)  // entries 16k..16k+15 in both 128-bit lanes (vpshufb looks up per lane)
      tables[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(evens_.data() + 16 * k)));
    const __m256i low4 = _mm256_set1_epi8(0x0f), low7 = _mm256_set1_epi8(0x7f);
    const uint8_t* t = table_.data();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
      if (_mm256_movemask_epi8(_mm256_slli_epi16(p, 7)) != 0) {  // bit 0 of some byte is set
        for (size_t j = i; j < i + 32; ++j) dst[j] = kMax ? std::max(dst[j], t[src[j]]) : t[src[j]];
        continue;
      }
      const __m256i idx = _mm256_and_si256(_mm256_srli_epi16(p, 1), low7);  // 0..127
      const __m256i lo = _mm256_and_si256(idx, low4);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(idx, 4), low4);  // 0..7
      __m256i out = _mm256_and_si256(_mm256_shuffle_epi8(tables[0], lo), _mm256_cmpeq_epi8(hi, _mm256_setzero_si256()));
      for (int k = 1; k < 8; ++k)
        out = _mm256_or_si256(out, _mm256_and_si256(_mm256_shuffle_epi8(tables[k], lo),
                                                    _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(k)))));
      if (kMax) out = _mm256_max_epu8(out, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + i)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), out);
    }
    return i;
  }
#endif

  std::array<uint8_t, 256> table_{};
  std::array<uint8_t, 128> evens_{};  // table[0], table[2], ..., table[254]
  Simd simd_ = Simd::kBase;
};

}  // namespace envhive::atari
