// The float64 elementary functions crafter calls through numpy, in one place so they can be
// switched to numpy's own loops (envhive's reference numerics) when those land.
//
// cos and pow: numpy's scalar float64 cos and ** equal glibc's on every dispatch level (checked
// for the first 200,000 steps of the day cycle). exp: on a CPU with AVX512F numpy >= 2 uses its
// own float64 exp, which differs from glibc's by 1 ulp for about 5% of arguments (on AVX2 and
// baseline dispatch it is glibc's). crafter passes exp through a sigmoid compared with thresholds
// (world generation) and through the night vignette truncated to uint8, so a 1-ulp difference
// changes no output unless a value lands within an ulp of a threshold or an integer.
#pragma once

#include <cmath>

namespace envhive::crafter {

inline double numpy_exp(double x) { return std::exp(x); }
inline double numpy_cos(double x) { return std::cos(x); }
inline double numpy_pow(double x, double y) { return std::pow(x, y); }

}  // namespace envhive::crafter
