// Palette index -> gray (or one of R, G, B) for a whole screen: the per-pixel table lookup of
// ALE's applyPaletteGrayscale/RGB, which is a tenth of a step's time when done byte by byte.
//
// The TIA only writes even palette indices (its colour registers drop bit 0), so the lookup is
// over 128 entries: on CPUs with AVX2 (checked at run time) it is 8 byte shuffles of 16-entry
// tables per 32 pixels. A chunk with an odd index goes through the plain table, so the result is
// ALE's for any input.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ENVHIVE_PALETTE_AVX2 1
#endif

namespace envhive::atari {

class PaletteLut {
 public:
  PaletteLut() = default;
  explicit PaletteLut(const std::array<uint8_t, 256>& table) : table_(table) {
    for (size_t k = 0; k < 8; ++k)
      for (size_t j = 0; j < 16; ++j) even_[k][j] = even_[k][j + 16] = table[2 * (16 * k + j)];
#ifdef ENVHIVE_PALETTE_AVX2
    avx2_ = __builtin_cpu_supports("avx2");
#endif
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
    if (avx2_) i = run_avx2<kMax>(src, dst, n);
#endif
    const uint8_t* t = table_.data();
    for (; i < n; ++i) dst[i] = kMax ? std::max(dst[i], t[src[i]]) : t[src[i]];
  }

#ifdef ENVHIVE_PALETTE_AVX2
  // Whole 32-pixel chunks; a chunk holding an odd index goes through the plain table instead.
  // Returns how many pixels were done.
  template <bool kMax>
  __attribute__((target("avx2"))) size_t run_avx2(const uint8_t* src, uint8_t* dst, size_t n) const {
    __m256i tables[8];
    for (int k = 0; k < 8; ++k) tables[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(even_[k].data()));
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
  alignas(32) std::array<std::array<uint8_t, 32>, 8> even_{};
  bool avx2_ = false;
};

}  // namespace envhive::atari
