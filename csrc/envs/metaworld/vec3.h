// Three float64 values with numpy's elementwise arithmetic (each operation rounded on its own, in
// numpy's order), for the positions Meta-World computes with (3,) arrays.
#pragma once

#include <array>
#include <cstddef>

#include "numerics.h"

namespace envhive::metaworld {

using Vec3 = std::array<double, 3>;

inline Vec3 vec3(const double* p) { return {p[0], p[1], p[2]}; }
inline Vec3 operator+(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline Vec3 operator-(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Vec3 operator*(const Vec3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline Vec3 operator*(double s, const Vec3& a) { return {s * a[0], s * a[1], s * a[2]}; }
inline Vec3 operator/(const Vec3& a, double s) { return {a[0] / s, a[1] / s, a[2] / s}; }
// np.linalg.norm of the first n values (v[:2] is n = 2).
inline double norm(const Vec3& v, size_t n) { return norm(v.data(), n); }

}  // namespace envhive::metaworld
