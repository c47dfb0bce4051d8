// np.dot and np.linalg.norm of short float64 vectors as numpy computes them: through OpenBLAS's
// ddot, whose loop for fewer than 16 elements accumulates with fused multiply-adds (tested against
// numpy in tests/test_dmc_alignment.py's trajectories: random quaternions are normalised by it).
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace envhive::dmc {

inline double blas_dot(const double* a, const double* b, size_t n) {
  if (n >= 16) throw std::logic_error("blas_dot: only vectors shorter than 16 (OpenBLAS's scalar loop)");
  double dot = 0.0;
  for (size_t i = 0; i < n; ++i) dot = std::fma(b[i], a[i], dot);
  return dot;
}

// np.linalg.norm(x) of a 1-d vector: sqrt(x.dot(x)).
inline double linalg_norm(const double* a, size_t n) { return std::sqrt(blas_dot(a, a, n)); }

// v.dot(m) of a 3-vector and a row-major 3x3 matrix (OpenBLAS's gemv: each column's dot product
// FMA-accumulated in row order).
inline void vec_dot_mat3(const double* v, const double* m, double* out) {
  for (int col = 0; col < 3; ++col) {
    double acc = 0.0;
    for (int row = 0; row < 3; ++row) acc = std::fma(m[3 * row + col], v[row], acc);
    out[col] = acc;
  }
}

}  // namespace envhive::dmc
