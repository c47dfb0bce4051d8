// CPython's hash of an int and of a tuple of ints (64-bit builds, Python 3.8 and later): crafter
// seeds each episode's world with hash((seed, episode)) % (2**31 - 1). Neither depends on
// PYTHONHASHSEED (only str and bytes hashes are randomised).
#pragma once

#include <cstdint>
#include <initializer_list>

namespace envhive::crafter {

// hash(n) for an int n >= 0: n modulo the Mersenne prime 2**61 - 1.
inline int64_t python_int_hash(uint64_t n) {
  constexpr uint64_t kModulus = (uint64_t{1} << 61) - 1;
  return static_cast<int64_t>(n % kModulus);
}

// hash(tuple) of already-hashed items: CPython's xxHash-style tuple hash.
inline int64_t python_tuple_hash(std::initializer_list<int64_t> item_hashes) {
  constexpr uint64_t kPrime1 = 11400714785074694791ull, kPrime2 = 14029467366897019727ull,
                     kPrime5 = 2870177450012600261ull;
  uint64_t acc = kPrime5;
  for (int64_t h : item_hashes) {
    acc += static_cast<uint64_t>(h) * kPrime2;
    acc = (acc << 31) | (acc >> 33);
    acc *= kPrime1;
  }
  acc += static_cast<uint64_t>(item_hashes.size()) ^ (kPrime5 ^ 3527539ull);
  if (acc == ~uint64_t{0}) return 1546275796;
  return static_cast<int64_t>(acc);
}

// Python's a % m for m > 0 (the result has the sign of m).
inline int64_t python_mod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// The seed crafter gives World.reset for episode `episode` of an env seeded `seed`.
inline uint32_t episode_world_seed(uint64_t seed, int64_t episode) {
  const int64_t h = python_tuple_hash({python_int_hash(seed), python_int_hash(static_cast<uint64_t>(episode))});
  return static_cast<uint32_t>(python_mod(h, (int64_t{1} << 31) - 1));
}

}  // namespace envhive::crafter
