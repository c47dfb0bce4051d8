// The calls of Gymnasium-Robotics whose numpy result depends on the CPU, in one place: each is
// numpy's own kernel of the running process (core/numpy_kernels.h: the ufunc loops and OpenBLAS
// calls the bindings install at import), called with the arguments numpy passes, so the tasks compute
// what the reference computes on every CPU (AVX-512, AVX2, baseline; any OpenBLAS kernel).
// Everything else the family computes is plain IEEE arithmetic in numpy's operand order
// (elementwise +, -, *, /, sqrt, and add.reduce's pairwise sums: npcompat::np_sum).
//
//  - matvec3: `jac @ qvel` of a (3, nv) Jacobian (mujoco_utils.get_site_xvelp / xvelr): dgemv.
//  - blas_dot / blas_norm: np.dot and np.linalg.norm without an axis (sqrt(x.dot(x))): ddot.
//  - exp, arccos, arctan2, sin, cos of one float64 (the references apply them to numpy scalars or
//    0-d views: numpy runs the loop with stride 0, npk::scalar).
// Without Python (robotics_loop_bench) they fall back to libm and OpenBLAS's FMA loop order.
#pragma once

#include <cstddef>

#include "../../core/numpy_kernels.h"

namespace envhive::robotics::numerics {

inline void matvec3(const double* jac, const double* v, int n, double out[3]) {
  npk::mat_vec(jac, v, 3, static_cast<size_t>(n), out);
}

inline double blas_dot(const double* a, const double* b, int n) { return npk::dot(a, b, static_cast<size_t>(n)); }

inline double blas_norm(const double* x, int n) { return npk::norm(x, static_cast<size_t>(n)); }

inline double exp(double x) { return npk::scalar(npk::Ufunc::kExp, x); }
inline double arccos(double x) { return npk::scalar(npk::Ufunc::kArccos, x); }
inline double arctan2(double y, double x) { return npk::scalar(npk::Ufunc::kArctan2, y, x); }
inline double sin(double x) { return npk::scalar(npk::Ufunc::kSin, x); }
inline double cos(double x) { return npk::scalar(npk::Ufunc::kCos, x); }

}  // namespace envhive::robotics::numerics
