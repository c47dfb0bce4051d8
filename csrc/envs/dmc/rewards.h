// dm_control.utils.rewards.tolerance and its sigmoids, with numpy's arithmetic.
//
// numpy distinguishes a scalar input (np.float64: `x ** 2` is libm's pow) from an array input
// (`a ** 2` is np.square, a plain product); both forms are here (Arg::scalar() / Arg::array(n)). The
// transcendental functions are numpy's own loops (core/numpy_kernels.h), called as numpy calls them
// for a scalar or for an element of an array of n, so rewards equal dm_control's on every CPU.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>

#include "../../core/numpy_compat.h"
#include "../../core/numpy_kernels.h"

namespace envhive::dmc {

enum class Sigmoid { kGaussian, kHyperbolic, kLongTail, kReciprocal, kCosine, kLinear, kQuadratic, kTanhSquared };
// Whether dm_control's x is a numpy scalar (np.float64, a Python float; n == 0) or an element of an
// array of n elements.
struct Arg {
  size_t n = 0;
  static Arg scalar() { return {}; }
  static Arg array(size_t size) { return {size}; }
  bool is_scalar() const { return n == 0; }
};

inline constexpr double kDefaultValueAtMargin = 0.1;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// `x ** 2` as numpy computes it for the argument's kind.
inline double square(double x, Arg arg) { return arg.is_scalar() ? npcompat::py_pow(x, 2.0) : x * x; }

// np.f(x) for the argument's kind (its scale factors are np.f of Python floats: scalars).
inline double np_fn(npk::Ufunc f, double x, Arg arg) {
  return arg.is_scalar() ? npk::scalar(f, x) : npk::element(f, x, arg.n);
}

// rewards._sigmoids(x, value_at_1, sigmoid) for one value.
inline double sigmoid_value(double x, double value_at_1, Sigmoid s, Arg arg) {
  switch (s) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * npk::scalar(npk::Ufunc::kLog, value_at_1));
      return np_fn(npk::Ufunc::kExp, -0.5 * square(x * scale, arg), arg);
    }
    case Sigmoid::kHyperbolic: {
      const double scale = npk::scalar(npk::Ufunc::kArccosh, 1 / value_at_1);
      return 1 / np_fn(npk::Ufunc::kCosh, x * scale, arg);
    }
    case Sigmoid::kLongTail: {
      const double scale = std::sqrt(1 / value_at_1 - 1);
      return 1 / (square(x * scale, arg) + 1);
    }
    case Sigmoid::kReciprocal: {
      const double scale = 1 / value_at_1 - 1;
      return 1 / (std::abs(x) * scale + 1);
    }
    case Sigmoid::kCosine: {
      const double scale = npk::scalar(npk::Ufunc::kArccos, 2 * value_at_1 - 1) / npcompat::kPi;
      const double scaled_x = x * scale;
      return std::abs(scaled_x) < 1 ? (1 + np_fn(npk::Ufunc::kCos, npcompat::kPi * scaled_x, arg)) / 2 : 0.0;
    }
    case Sigmoid::kLinear: {
      const double scale = 1 - value_at_1;
      const double scaled_x = x * scale;
      return std::abs(scaled_x) < 1 ? 1 - scaled_x : 0.0;
    }
    case Sigmoid::kQuadratic: {
      const double scale = std::sqrt(1 - value_at_1);
      const double scaled_x = x * scale;
      return std::abs(scaled_x) < 1 ? 1 - square(scaled_x, arg) : 0.0;
    }
    case Sigmoid::kTanhSquared: {
      const double scale = npk::scalar(npk::Ufunc::kArctanh, std::sqrt(1 - value_at_1));
      return 1 - square(np_fn(npk::Ufunc::kTanh, x * scale, arg), arg);
    }
  }
  throw std::logic_error("unknown sigmoid");
}

struct Tolerance {
  double lower = 0.0, upper = 0.0;
  double margin = 0.0;
  Sigmoid sigmoid = Sigmoid::kGaussian;
  double value_at_margin = kDefaultValueAtMargin;
};

// rewards.tolerance(x, bounds=(lower, upper), margin, sigmoid, value_at_margin) for one value.
inline double tolerance(double x, const Tolerance& t, Arg arg = Arg::scalar()) {
  const bool in_bounds = t.lower <= x && x <= t.upper;
  if (t.margin == 0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  const double d = (x < t.lower ? t.lower - x : x - t.upper) / t.margin;
  return sigmoid_value(d, t.value_at_margin, t.sigmoid, arg);
}

}  // namespace envhive::dmc
