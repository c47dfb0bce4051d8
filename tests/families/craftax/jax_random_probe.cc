// Prints jax.random draws computed by csrc/envs/craftax/jax_random.h for test_craftax_random.py:
//   jax_random_probe SEED N LO HI
// One line each: key, split(key, N) (N keys), fold_in(key, 7), bits(key, (N,)), uniform(key, (N,))
// as float32 bit patterns, randint(key, (N,), LO, HI).
#include <cstdio>
#include <cstdlib>

#include "envs/craftax/jax_random.h"

using namespace envhive::craftax;

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const Key key = key_from_seed(std::strtoull(argv[1], nullptr, 10));
  const int n = std::atoi(argv[2]);
  const int lo = std::atoi(argv[3]), hi = std::atoi(argv[4]);
  std::printf("%u %u\n", key.k0, key.k1);
  for (int i = 0; i < n; ++i) std::printf("%u %u ", split_at(key, i).k0, split_at(key, i).k1);
  const Key f = fold_in(key, 7);
  std::printf("\n%u %u\n", f.k0, f.k1);
  for (int i = 0; i < n; ++i) std::printf("%u ", bits32(key, i));
  std::printf("\n");
  for (int i = 0; i < n; ++i) {
    const float u = uniform01(key, i);
    unsigned bits;
    static_assert(sizeof(bits) == sizeof(u));
    __builtin_memcpy(&bits, &u, sizeof bits);
    std::printf("%u ", bits);
  }
  std::printf("\n");
  for (int i = 0; i < n; ++i) std::printf("%d ", randint(key, i, lo, hi));
  std::printf("\n");
  return 0;
}
