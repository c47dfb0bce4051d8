// Meta-World's numpy arithmetic that is not plain IEEE, in one place: every call that goes through
// OpenBLAS or one of numpy's dispatched ufunc loops, each the running numpy's own kernel
// (core/numpy_kernels.h), so a reward is what Meta-World computes on this CPU, bit for bit.
//
// - np.linalg.norm(v) of a float64 vector is sqrt(v.dot(v)): OpenBLAS's ddot, whose kernel (and so
//   whether it fuses the multiply-adds) depends on the CPU OpenBLAS picked; npk::norm calls it.
// - np.log / np.exp of a float64 scalar (door-open's floor, the gaussian sigmoid): numpy's SIMD
//   loops differ from libm in the last bit for some arguments on AVX-512; npk::scalar calls the loop
//   numpy runs for a one-element operand; np.sin / np.cos of dial-turn's knob angle likewise.
// - `x ** 2` of an np.float64 scalar is glibc's pow (npcompat::py_pow).
#pragma once

#include <array>
#include <cstddef>

#include "../../core/numpy_compat.h"
#include "../../core/numpy_kernels.h"

namespace envhive::metaworld {

// np.linalg.norm(v) (ord None or 2) of a float64 vector of n values.
inline double norm(const double* v, size_t n) { return npk::norm(v, n); }
template <size_t N>
inline double norm(const std::array<double, N>& v) {
  return npk::norm(v.data(), N);
}
// np.linalg.norm of a float64 scalar (a 0-d array): sqrt(x * x).
inline double norm1(double x) { return npk::norm(&x, 1); }

// np.log / np.exp of one float64 (a Python float or an np.float64).
inline double np_log(double x) { return npk::scalar(npk::Ufunc::kLog, x); }
inline double np_exp(double x) { return npk::scalar(npk::Ufunc::kExp, x); }
// np.sin / np.cos of a one-element float64 array (dial-turn's knob angle, a view of data.qpos).
inline double np_sin(double x) { return npk::scalar(npk::Ufunc::kSin, x); }
inline double np_cos(double x) { return npk::scalar(npk::Ufunc::kCos, x); }

using npcompat::py_pow;

}  // namespace envhive::metaworld
