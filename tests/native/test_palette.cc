// The Atari palette lookup (csrc/envs/atari/palette.h) at every vector level the CPU has: each
// level's bytes equal the plain table's, for plain and max-pooled lookups, any length, and chunks
// holding odd indices (which the TIA never writes, but the fallback must still be exact).
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../../csrc/envs/atari/palette.h"
#include "check.h"

using envhive::atari::atari_simd;
using envhive::atari::cpu_simd;
using envhive::atari::PaletteLut;
using envhive::atari::Simd;

namespace {

std::vector<Simd> levels_of_this_cpu() {
  std::vector<Simd> out;
  for (Simd s : {Simd::kBase, Simd::kAvx2, Simd::kAvx512})
    if (s <= cpu_simd()) out.push_back(s);
  return out;
}

}  // namespace

TEST(palette_lookup_equals_the_plain_table_at_every_vector_level) {
  std::mt19937 rng(7);
  std::array<uint8_t, 256> table{};
  for (auto& v : table) v = static_cast<uint8_t>(rng());
  for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{63}, size_t{64}, size_t{65}, size_t{1031},
                   size_t{210 * 160}}) {
    std::vector<uint8_t> src(n), prior(n);
    for (size_t i = 0; i < n; ++i) {
      src[i] = static_cast<uint8_t>(rng() & 0xfe);  // even, as the TIA writes
      prior[i] = static_cast<uint8_t>(rng());
    }
    if (n > 100) src[70] |= 1, src[n - 3] |= 1;  // odd indices in a middle and the last chunks
    std::vector<uint8_t> want(n), want_max(n);
    for (size_t i = 0; i < n; ++i) {
      want[i] = table[src[i]];
      want_max[i] = std::max(prior[i], table[src[i]]);
    }
    for (Simd level : levels_of_this_cpu()) {
      const PaletteLut lut(table, level);
      std::vector<uint8_t> out(n, 0), out_max = prior;
      lut.apply(src.data(), out.data(), n);
      lut.apply_max(src.data(), out_max.data(), n);
      CHECK(out == want);
      CHECK(out_max == want_max);
    }
  }
}

TEST(atari_simd_caps_the_cpu_level_and_rejects_unknown_names) {
  CHECK(atari_simd(nullptr) == cpu_simd());
  CHECK(atari_simd("") == cpu_simd());
  CHECK(atari_simd("base") == Simd::kBase);
  CHECK(atari_simd("avx2") == std::min(Simd::kAvx2, cpu_simd()));
  CHECK(atari_simd("avx512") == cpu_simd());  // asking for more than the CPU has gives its level
  CHECK_THROWS(atari_simd("sse9"), "ENVHIVE_ATARI_SIMD=sse9: expected base, avx2 or avx512");
}
