// The float64 functions crafter calls through numpy, computed as the running numpy computes them
// (core/numpy_kernels.h: numpy's own ufunc loops, so the same last bits on every CPU dispatch level).
//
// exp: world generation's sigmoid, np.exp of an np.float64 scalar (numpy's scalar call), and the
// night vignette, element i of np.exp over the whole (view) array (numpy's array call: on an
// AVX-512 CPU numpy >= 2 runs its own float64 exp there, 1 ulp from glibc's for some arguments).
// cos: the daylight curve, np.cos of a Python float. pow: np.float64 ** 3, which numpy's scalar
// power computes with the C library's pow.
#pragma once

#include <cmath>
#include <cstddef>

#include "../../core/numpy_kernels.h"

namespace envhive::crafter {

inline double numpy_exp(double x) { return npk::scalar(npk::Ufunc::kExp, x); }
inline double numpy_exp_element(double x, size_t n) { return npk::element(npk::Ufunc::kExp, x, n); }
inline double numpy_cos(double x) { return npk::scalar(npk::Ufunc::kCos, x); }
inline double numpy_pow(double x, double y) { return std::pow(x, y); }

}  // namespace envhive::crafter
