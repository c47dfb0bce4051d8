// 3D OpenSimplex noise (Kurt Spencer's algorithm) as the `opensimplex` package 0.4.5 evaluates it
// (OpenSimplex(seed).noise3): the same permutation from the seed's 64-bit LCG, the same gradient
// set, and every contribution computed and summed in the same order in float64, so the values
// are bit for bit those crafter's world generation thresholds.
#pragma once

#include <array>
#include <cstdint>

namespace envhive::crafter {

class SimplexNoise {
 public:
  explicit SimplexNoise(int64_t seed);
  double noise3(double x, double y, double z) const;

 private:
  struct Vertex {
    double dx, dy, dz;  // offset of the input from the lattice vertex
    int64_t x, y, z;    // the vertex (stretched lattice coordinates)
  };
  // One vertex's contribution, added to `value` when it is in range.
  void add(double& value, const Vertex& v) const;

  std::array<int64_t, 256> perm_{};
  std::array<int64_t, 256> grad_index_{};  // perm % 24 * 3: a gradient's offset in the table
};

}  // namespace envhive::crafter
