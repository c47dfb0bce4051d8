// metaworld.utils.reward_utils (tolerance, hamacher_product, rect_prism_tolerance) with numpy's and
// CPython's arithmetic. Reward code mixes Python floats, np.float64 and the np.float32 entries of the
// action; where a value can be float32 (anything computed from the action) it is a Num, which
// promotes as NEP 50 does (core/numpy_compat.h).
#pragma once

#include <cmath>
#include <stdexcept>

#include "../../core/numpy_compat.h"
#include "numerics.h"

namespace envhive::metaworld {

using Num = npcompat::NpScalar;
inline Num py(double v) { return Num::py(v); }
inline Num f64(double v) { return Num::f64(v); }
inline Num f32(float v) { return Num::f32(v); }
// a / b with NEP 50 promotion (NpScalar has + - * only).
inline Num operator/(const Num& a, const Num& b) {
  const Num::Kind k = npcompat::promote(a.kind, b.kind);
  if (k == Num::Kind::kF32) return Num::f32(a.as_f32() / b.as_f32());
  return {a.as_f64() / b.as_f64(), 0.0f, k};
}

enum class Sigmoid { kLongTail, kGaussian };

// reward_utils.tolerance(x, bounds=(lower, upper), margin, sigmoid, value_at_margin=0.1) for a
// float64 x (a Python float or np.float64); returns value.item(), a Python float.
double tolerance(double x, double lower, double upper, double margin, Sigmoid sigmoid = Sigmoid::kLongTail,
                 double value_at_margin = 0.1);

// reward_utils.hamacher_product(a, b): (a * b) / (a + b - a * b), 0 when the denominator is not
// positive; throws like it when a or b is outside [0, 1].
inline Num hamacher_product(const Num& a, const Num& b) {
  const Num zero = py(0.0), one = py(1.0);
  if (!((zero <= a && a <= one) && (zero <= b && b <= one)))
    throw std::domain_error("hamacher_product: a and b must range between 0 and 1");
  const Num denominator = a + b - (a * b);
  if (denominator > zero) return (a * b) / denominator;
  return py(0.0);  // the int 0: a Python scalar either way
}
inline double hamacher_product(double a, double b) { return hamacher_product(py(a), py(b)).as_f64(); }

// reward_utils.rect_prism_tolerance(curr, zero, one).
double rect_prism_tolerance(const double* curr, const double* zero, const double* one);

}  // namespace envhive::metaworld
