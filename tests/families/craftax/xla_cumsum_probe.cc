// Reads N float32 bit patterns from stdin and prints their cumulative sums as
// csrc/envs/craftax/xla_cumsum.h computes them (bit patterns), then, for SEED, the index
// jax.random.choice(PRNGKey(SEED), N, p=x) picks.   xla_cumsum_probe N SEED
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "envs/craftax/xla_cumsum.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const size_t n = std::strtoull(argv[1], nullptr, 10);
  std::vector<float> x(n), out(n), scratch;
  for (auto& v : x) {
    unsigned bits;
    if (std::scanf("%u", &bits) != 1) return 3;
    std::memcpy(&v, &bits, sizeof v);
  }
  envhive::craftax::xla_cumsum(x.data(), n, out.data());
  for (float v : out) {
    unsigned bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::printf("%u ", bits);
  }
  const auto key = envhive::craftax::key_from_seed(std::strtoull(argv[2], nullptr, 10));
  std::printf("\n%zu\n", envhive::craftax::choice_index(key, x.data(), n, scratch));
  return 0;
}
