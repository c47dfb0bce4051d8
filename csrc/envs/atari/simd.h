// Which vector instructions the Atari palette lookup (palette.h) may use: the best the CPU (and the
// OS, which must save the wider registers) offers, capped by $ENVHIVE_ATARI_SIMD. The resize stays
// SSE2 at every level (wider floating point measured slower overall, docs/envs.md).
//
// Every level computes the same bytes (tests/native/test_palette.cc checks each against the plain
// table, tests/families/atari/test_atari_frames.py each against ALE's own screens); the cap exists to test and
// compare the lower levels on a machine that has the higher ones.
#pragma once

#include <stdexcept>
#include <string>

namespace envhive::atari {

enum class Simd {
  kBase,    // what the compiler's baseline target gives (SSE2 on x86-64)
  kAvx2,    // + AVX2
  kAvx512,  // + AVX-512 F, BW and VBMI (Ice Lake, Zen 4 and later)
};

// The CPU's level, ignoring $ENVHIVE_ATARI_SIMD.
inline Simd cpu_simd() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's checks include the OS's support for the registers (XCR0), not only CPUID.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi"))
    return Simd::kAvx512;
  if (__builtin_cpu_supports("avx2")) return Simd::kAvx2;
#endif
  return Simd::kBase;
}

// The level to use: the CPU's, or lower where $ENVHIVE_ATARI_SIMD ("base", "avx2", "avx512")
// asks for less. Asking for more than the CPU has gives the CPU's level; an unknown value throws.
inline Simd atari_simd(const char* cap) {
  const Simd cpu = cpu_simd();
  if (cap == nullptr || *cap == '\0') return cpu;
  const std::string text(cap);
  Simd want;
  if (text == "base")
    want = Simd::kBase;
  else if (text == "avx2")
    want = Simd::kAvx2;
  else if (text == "avx512")
    want = Simd::kAvx512;
  else
    throw std::invalid_argument("ENVHIVE_ATARI_SIMD=" + text + ": expected base, avx2 or avx512");
  return want < cpu ? want : cpu;
}

}  // namespace envhive::atari
