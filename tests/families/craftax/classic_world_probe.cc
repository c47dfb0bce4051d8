// Prints the Craftax-Classic map csrc/envs/craftax/classic_world.cc generates for a reset key
// (row-major, x first), then the state's key:   classic_world_probe K0 K1
#include <cstdio>
#include <cstdlib>

#include "envs/craftax/classic_world.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const envhive::craftax::Key key{static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)),
                                  static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10))};
  const auto world = envhive::craftax::generate_classic_world(key);
  for (auto b : world.map) std::printf("%d ", b);
  std::printf("\n%u %u\n", world.state_rng.k0, world.state_rng.k1);
  return 0;
}
