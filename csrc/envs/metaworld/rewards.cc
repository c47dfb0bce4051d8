#include "rewards.h"

#include <string>

namespace envhive::metaworld {

namespace {
// The sigmoid's scale for value_at_1 = 0.1: np.sqrt(1 / 0.1 - 1) is exactly 3 (long_tail);
// np.sqrt(-2 * np.log(0.1)) for the gaussian.
double sigmoid(double x, double value_at_1, Sigmoid s) {
  if (!(0 < value_at_1 && value_at_1 < 1))
    throw std::invalid_argument("`value_at_1` must be strictly between 0 and 1, got " + std::to_string(value_at_1));
  if (s == Sigmoid::kLongTail) {
    const double scale = std::sqrt(1 / value_at_1 - 1);
    return 1 / (py_pow(x * scale, 2.0) + 1);
  }
  const double scale = std::sqrt(-2 * np_log(value_at_1));
  return np_exp(-0.5 * py_pow(x * scale, 2.0));
}
}  // namespace

double tolerance(double x, double lower, double upper, double margin, Sigmoid s, double value_at_margin) {
  if (lower > upper) throw std::invalid_argument("Lower bound must be <= upper bound.");
  if (margin < 0) throw std::invalid_argument("`margin` must be non-negative. Current value: " + std::to_string(margin));
  const bool in_bounds = lower <= x && x <= upper;
  if (margin == 0) return in_bounds ? 1.0 : 0.0;
  const double d = (x < lower ? lower - x : x - upper) / margin;
  const double sig = sigmoid(d, value_at_margin, s);  // np.where evaluates both branches
  return in_bounds ? 1.0 : sig;
}

double rect_prism_tolerance(const double* curr, const double* zero, const double* one) {
  const auto in_range = [](double a, double b, double c) {
    return c >= b ? (b <= a && a <= c) : (c <= a && a <= b);
  };
  if (in_range(curr[0], zero[0], one[0]) && in_range(curr[1], zero[1], one[1]) && in_range(curr[2], zero[2], one[2])) {
    const double diff[3] = {one[0] - zero[0], one[1] - zero[1], one[2] - zero[2]};
    const double x = (curr[0] - zero[0]) / diff[0];
    const double y = (curr[1] - zero[1]) / diff[1];
    const double z = (curr[2] - zero[2]) / diff[2];
    return x * y * z;
  }
  return 1.0;
}

}  // namespace envhive::metaworld
