// gymnasium_robotics.utils.rotations, the functions the tasks use, with numpy's operand order.
#pragma once

#include <cmath>

#include "numerics.h"

namespace envhive::robotics::rotations {

// rotations._FLOAT_EPS and _EPS4.
inline constexpr double kFloatEps = 2.220446049250313e-16;
inline constexpr double kEps4 = kFloatEps * 4.0;

// mat2euler of a row-major 3 x 3 matrix.
inline void mat2euler(const double* m, double out[3]) {
  const double cy = std::sqrt(m[8] * m[8] + m[5] * m[5]);
  const bool condition = cy > kEps4;
  out[2] = condition ? -numerics::arctan2(m[1], m[0]) : -numerics::arctan2(-m[3], m[4]);
  out[1] = -numerics::arctan2(-m[2], cy);
  out[0] = condition ? -numerics::arctan2(m[5], m[8]) : 0.0;
}

// quat2mat of (w, x, y, z), row-major (the identity for a quaternion of norm <= eps).
inline void quat2mat(const double* q, double m[9]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double nq = ((w * w + x * x) + y * y) + z * z;
  if (!(nq > kFloatEps)) {
    for (int i = 0; i < 9; ++i) m[i] = i % 4 == 0 ? 1.0 : 0.0;
    return;
  }
  const double s = 2.0 / nq;
  const double X = x * s, Y = y * s, Z = z * s;
  const double wX = w * X, wY = w * Y, wZ = w * Z;
  const double xX = x * X, xY = x * Y, xZ = x * Z;
  const double yY = y * Y, yZ = y * Z, zZ = z * Z;
  m[0] = 1.0 - (yY + zZ), m[1] = xY - wZ, m[2] = xZ + wY;
  m[3] = xY + wZ, m[4] = 1.0 - (xX + zZ), m[5] = yZ - wX;
  m[6] = xZ - wY, m[7] = yZ + wX, m[8] = 1.0 - (xX + yY);
}

inline void quat2euler(const double* q, double out[3]) {
  double m[9];
  quat2mat(q, m);
  mat2euler(m, out);
}

// euler2quat of (x, y, z) angles: (w, x, y, z).
inline void euler2quat(const double* e, double q[4]) {
  const double ai = e[2] / 2, aj = -e[1] / 2, ak = e[0] / 2;
  const double si = numerics::sin(ai), sj = numerics::sin(aj), sk = numerics::sin(ak);
  const double ci = numerics::cos(ai), cj = numerics::cos(aj), ck = numerics::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  q[0] = cj * cc + sj * ss;
  q[3] = cj * sc - sj * cs;
  q[2] = -(cj * ss + sj * cc);
  q[1] = cj * cs - sj * sc;
}

// euler2mat of (x, y, z) angles, row-major.
inline void euler2mat(const double* e, double m[9]) {
  const double ai = -e[2], aj = -e[1], ak = -e[0];
  const double si = numerics::sin(ai), sj = numerics::sin(aj), sk = numerics::sin(ak);
  const double ci = numerics::cos(ai), cj = numerics::cos(aj), ck = numerics::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  m[8] = cj * ck, m[7] = sj * sc - cs, m[6] = sj * cc + ss;
  m[5] = cj * sk, m[4] = sj * ss + cc, m[3] = sj * cs - sc;
  m[2] = -sj, m[1] = cj * si, m[0] = cj * ci;
}

// quat_mul(q0, q1) and quat_conjugate(q) of (w, x, y, z) quaternions.
inline void quat_mul(const double* a, const double* b, double out[4]) {
  const double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  const double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  const double y = a[0] * b[2] + a[2] * b[0] + a[3] * b[1] - a[1] * b[3];
  const double z = a[0] * b[3] + a[3] * b[0] + a[1] * b[2] - a[2] * b[1];
  out[0] = w, out[1] = x, out[2] = y, out[3] = z;
}
inline void quat_conjugate(const double* q, double out[4]) {
  out[0] = -(-q[0]), out[1] = -q[1], out[2] = -q[2], out[3] = -q[3];
}

}  // namespace envhive::robotics::rotations
