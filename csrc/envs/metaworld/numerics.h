// Meta-World's numpy arithmetic that is not plain IEEE: every call that goes through OpenBLAS or one
// of numpy's dispatched ufunc loops, in one place, so that the process-wide "reference numerics"
// table (csrc/envs/reference/, being landed) can take these over without touching a task.
//
// - np.linalg.norm(v) of a float64 vector is sqrt(v.dot(v)): OpenBLAS's ddot. For the short vectors
//   Meta-World passes (1 to 4 values) its kernels reduce to one loop `dot += x[i] * x[i]`, compiled
//   with FMA contraction in the SkylakeX / Zen kernels and without in the Haswell and Nehalem ones.
//   Which one numpy's OpenBLAS runs is probed once in Python (envhive.families.metaworld.
//   blas_dot_uses_fma) and handed here before any env exists (set_blas_dot_fma).
// - np.log / np.exp of float64: numpy's own SIMD loops on AVX512F differ from libm in the last bit
//   for a fraction of a percent of arguments. These use libm for now: a reward that passes through
//   one (door-open's floor, the v2 gaussian sigmoid) can differ by an ulp or two, never the state.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>

#include "../../core/numpy_compat.h"

namespace envhive::metaworld {

// Whether numpy's ddot fuses the multiply-adds of a short vector (set once per process).
void set_blas_dot_fma(bool fma);
bool blas_dot_fma();

// v.dot(w) for n <= 15 (OpenBLAS's tail loop; its blocked kernel starts at 16 values).
inline double blas_dot(const double* v, const double* w, size_t n) {
  double dot = 0.0;
  if (blas_dot_fma()) {
    for (size_t i = 0; i < n; ++i) dot = std::fma(w[i], v[i], dot);
  } else {
    for (size_t i = 0; i < n; ++i) dot += w[i] * v[i];
  }
  return dot;
}

// np.linalg.norm(v) (ord None or 2) of a float64 vector of n values.
inline double norm(const double* v, size_t n) { return std::sqrt(blas_dot(v, v, n)); }
template <size_t N>
inline double norm(const std::array<double, N>& v) {
  return norm(v.data(), N);
}
// np.linalg.norm of a float64 scalar (a 0-d array): sqrt(x * x) = |x| up to rounding of x * x.
inline double norm1(double x) { return norm(&x, 1); }

// np.log / np.exp of one float64 (libm; see above).
inline double np_log(double x) { return std::log(x); }
inline double np_exp(double x) { return std::exp(x); }

using npcompat::py_pow;

}  // namespace envhive::metaworld
