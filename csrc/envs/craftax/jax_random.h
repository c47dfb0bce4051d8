// JAX's default PRNG (jax.random with the threefry2x32 implementation and
// jax_threefry_partitionable=True, the default since jax 0.5), bit for bit: the keys craftax's
// world generation and game logic split, and the draws they make from them. Every function says
// which jax.random call it reproduces; element i of a shaped draw depends only on (key, i), so a
// draw of any shape is computed element by element.
//
// The first building block of the Craftax family (issue 43): tests/families/craftax checks it
// against jax itself.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>

namespace envhive::craftax {

// A raw threefry key: jax.random.key_data(key), two uint32 words.
struct Key {
  uint32_t k0 = 0, k1 = 0;
  bool operator==(const Key&) const = default;
};

// The Threefry-2x32 block cipher with 20 rounds (jax's threefry2x32 primitive): (x0, x1) -> two words.
inline std::pair<uint32_t, uint32_t> threefry2x32(Key key, uint32_t x0, uint32_t x1) {
  constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {key.k0, key.k1, key.k0 ^ key.k1 ^ 0x1BD11BDAu};
  x0 += ks[0];
  x1 += ks[1];
  for (uint32_t block = 0; block < 5; ++block) {
    for (int r : kRotations[block % 2]) {
      x0 += x1;
      x1 = std::rotl(x1, r);
      x1 ^= x0;
    }
    x0 += ks[(block + 1) % 3];
    x1 += ks[(block + 2) % 3] + block + 1;
  }
  return {x0, x1};
}

// jax.random.PRNGKey(seed): the seed's high and low 32-bit halves (a seed below 2**32 gives (0, seed)).
inline Key key_from_seed(uint64_t seed) { return {static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(seed)}; }

// The counter pair of flat index i of a shaped draw (jax's iota_2x32_shape: a uint64 iota).
inline std::pair<uint32_t, uint32_t> counter(uint64_t i) { return {static_cast<uint32_t>(i >> 32), static_cast<uint32_t>(i)}; }

// jax.random.split(key, n)[i], for any n > i (the partitionable split: key i hashes counter i).
inline Key split_at(Key key, uint64_t i) {
  const auto [c0, c1] = counter(i);
  const auto [b0, b1] = threefry2x32(key, c0, c1);
  return {b0, b1};
}

// jax.random.fold_in(key, data).
inline Key fold_in(Key key, uint32_t data) {
  const auto [b0, b1] = threefry2x32(key, 0, data);
  return {b0, b1};
}

// jax.random.bits(key, shape, uint32).ravel()[i] (random_bits of width 32).
inline uint32_t bits32(Key key, uint64_t i) {
  const auto [c0, c1] = counter(i);
  const auto [b0, b1] = threefry2x32(key, c0, c1);
  return b0 ^ b1;
}

// jax.random.uniform(key, shape, float32).ravel()[i]: 23 random mantissa bits over [1, 2), minus 1.
inline float uniform01(Key key, uint64_t i) {
  const float f = std::bit_cast<float>((bits32(key, i) >> 9) | 0x3F800000u) - 1.0f;
  return f > 0.0f ? f : 0.0f;  // lax.max(minval, floats * 1 + 0)
}

// jax.random.randint(key, shape, lo, hi, int32).ravel()[i]: two 32-bit draws (from the two keys of
// split(key)) folded into [lo, hi) modulo the span, in uint32 arithmetic as jax does it.
inline int32_t randint(Key key, uint64_t i, int32_t lo, int32_t hi) {
  const uint32_t higher = bits32(split_at(key, 0), i), lower = bits32(split_at(key, 1), i);
  const uint32_t span = hi <= lo ? 1u : static_cast<uint32_t>(static_cast<int64_t>(hi) - lo);
  uint32_t multiplier = 65536u % span;
  multiplier = (multiplier * multiplier) % span;
  const uint32_t offset = ((higher % span) * multiplier + lower % span) % span;
  return static_cast<int32_t>(static_cast<uint32_t>(lo) + offset);
}

}  // namespace envhive::craftax
