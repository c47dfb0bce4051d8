// The few calls of Gymnasium-Robotics whose numpy result depends on the CPU, in one place so they
// can be switched to the process-wide reference-numerics table (numpy's own ufunc loops and BLAS
// calls) once it lands. Everything else the family computes is plain IEEE arithmetic in numpy's
// operand order (elementwise +, -, *, sqrt, and add.reduce over the last axis, which numpy sums
// left to right for the short rows used here) and is bit for bit the reference's on every CPU.
//
//  - matvec3: `jac @ qvel` of a (3, nv) float64 Jacobian (mujoco_utils.get_site_xvelp/xvelr).
//    numpy's matmul hands it to OpenBLAS dgemv, whose kernel (and so its summation order and FMA
//    use) OpenBLAS picks per CPU. Here: one left-to-right dot per row, no FMA. The tests bound the
//    difference by 8 ulp of sum_j |jac_ij * qvel_j| (the error of any summation order).
//  - blas_dot / blas_norm: np.dot and np.linalg.norm(x) (axis=None: sqrt(x.dot(x))) go to OpenBLAS
//    ddot, whose loop for vectors shorter than 16 accumulates left to right, with fused multiply-adds
//    in some kernels (SkylakeX's) and without in others (Haswell's, Nehalem's). Which one numpy runs
//    here is probed once when the module loads (set_fma_dot, from csrc/bindings/robotics_tasks.cc:
//    numpy's own dot of fixed vectors against both loops), so the hand's quaternion normalisations,
//    which feed the state, are exact on every CPU. Vectors of 16 or more go through the kernel's
//    SIMD blocks: AdroitHandHammer's norm of 33 velocities is bounded in its test.
//  - exp: np.exp on float64 is glibc's exp on baseline and AVX2 CPUs and numpy's own AVX512F kernel
//    on AVX-512 CPUs (1 ulp from glibc for a few percent of inputs): the dense maze reward.
//  - arctan2: np.arctan2 on float64 is glibc's atan2 on baseline and AVX2 CPUs, and SVML's on
//    CPUs with AVX512_SKX (it differs from glibc in the last bit for a few percent of inputs).
//    Here: glibc's atan2, so object rotations are exact on baseline / AVX2 and within 2 ulp on
//    AVX-512.
#pragma once

#include <cmath>

namespace envhive::robotics::numerics {

inline void matvec3(const double* jac, const double* v, int n, double out[3]) {
  for (int r = 0; r < 3; ++r) {
    double s = 0.0;
    const double* row = jac + static_cast<long>(r) * n;
    for (int j = 0; j < n; ++j) s += row[j] * v[j];
    out[r] = s;
  }
}

// Whether this process's OpenBLAS ddot fuses its short-vector loop (default: yes).
inline bool& fma_dot() {
  static bool fused = true;
  return fused;
}
inline void set_fma_dot(bool fused) { fma_dot() = fused; }

// np.dot of two float64 vectors (OpenBLAS ddot's loop, fused or not as probed).
inline double blas_dot(const double* a, const double* b, int n) {
  double s = 0.0;
  if (fma_dot()) {
    for (int i = 0; i < n; ++i) s = std::fma(b[i], a[i], s);
  } else {
    for (int i = 0; i < n; ++i) s += b[i] * a[i];
  }
  return s;
}

inline double blas_norm(const double* x, int n) { return std::sqrt(blas_dot(x, x, n)); }

inline double exp(double x) { return std::exp(x); }

// np.arccos on float64: glibc's acos on baseline and AVX2 CPUs, SVML's on AVX-512 ones (the
// Shadow Hand's rotation distance).
inline double arccos(double x) { return std::acos(x); }

inline double arctan2(double y, double x) { return std::atan2(y, x); }

}  // namespace envhive::robotics::numerics
