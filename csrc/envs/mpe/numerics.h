// The family's calls into numpy's own ufunc loops, in one place (csrc/core/numpy_kernels.h):
// np.exp of a float64 scalar is SIMD-dispatched per CPU, so it is numpy's loop, not libm.
#pragma once

#include "../../core/numpy_kernels.h"

namespace envhive::mpe {

// np.exp(x) of an np.float64 scalar.
inline double np_exp(double x) { return npk::scalar(npk::Ufunc::kExp, x); }

// simple_tag / simple_world_comm's bound(x): the penalty for leaving the arena along one axis
// (0 inside 0.9, linear to 1, then min(np.exp(2 * x - 2), 10) with Python's min).
inline double arena_bound(double x) {
  if (x < 0.9) return 0;
  if (x < 1.0) return (x - 0.9) * 10;
  const double e = np_exp(2 * x - 2);
  return 10 < e ? 10.0 : e;
}

}  // namespace envhive::mpe
