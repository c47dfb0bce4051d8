// dm_control.utils.rewards.tolerance and its sigmoids, with numpy's arithmetic.
//
// numpy distinguishes a scalar input (np.float64: `x ** 2` is libm's pow) from an array input
// (`a ** 2` is np.square, a plain product); both forms are here (Arg::kScalar / kArray). numpy's
// float64 exp, log, cosh, arccos and tanh are SIMD kernels of its own (AVX512F / SVML) that differ
// from libm in the last bit for a few percent of arguments; these use libm, so a reward can differ
// from dm_control's by an ulp or two (it never feeds back into the state; the tests say so).
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>

#include "../../core/numpy_compat.h"

namespace envhive::dmc {

enum class Sigmoid { kGaussian, kHyperbolic, kLongTail, kReciprocal, kCosine, kLinear, kQuadratic, kTanhSquared };
// Whether dm_control's x is a numpy scalar (np.float64, a Python float) or an element of an array.
enum class Arg { kScalar, kArray };

inline constexpr double kDefaultValueAtMargin = 0.1;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// `x ** 2` as numpy computes it for the argument's kind.
inline double square(double x, Arg arg) { return arg == Arg::kScalar ? npcompat::py_pow(x, 2.0) : x * x; }

// rewards._sigmoids(x, value_at_1, sigmoid) for one value.
inline double sigmoid_value(double x, double value_at_1, Sigmoid s, Arg arg) {
  switch (s) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * std::log(value_at_1));
      return std::exp(-0.5 * square(x * scale, arg));
    }
    case Sigmoid::kHyperbolic: {
      const double scale = std::acosh(1 / value_at_1);
      return 1 / std::cosh(x * scale);
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
      const double scale = std::acos(2 * value_at_1 - 1) / npcompat::kPi;
      const double scaled_x = x * scale;
      return std::abs(scaled_x) < 1 ? (1 + std::cos(npcompat::kPi * scaled_x)) / 2 : 0.0;
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
      const double scale = std::atanh(std::sqrt(1 - value_at_1));
      return 1 - square(std::tanh(x * scale), arg);
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
inline double tolerance(double x, const Tolerance& t, Arg arg = Arg::kScalar) {
  const bool in_bounds = t.lower <= x && x <= t.upper;
  if (t.margin == 0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  const double d = (x < t.lower ? t.lower - x : x - t.upper) / t.margin;
  return sigmoid_value(d, t.value_at_margin, t.sigmoid, arg);
}

}  // namespace envhive::dmc
