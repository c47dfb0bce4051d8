#include "simplex_noise.h"

#include <cmath>

namespace envhive::crafter {

namespace {

// The 24 gradients of the 3D algorithm (directions to a rhombicuboctahedron's vertices).
constexpr std::array<int64_t, 72> kGradients3 = {
    -11, 4,  4,  -4, 11,  4,  -4, 4,  11,  11, 4,  4,  4, 11,  4,  4, 4,  11,
    -11, -4, 4,  -4, -11, 4,  -4, -4, 11,  11, -4, 4,  4, -11, 4,  4, -4, 11,
    -11, 4,  -4, -4, 11,  -4, -4, 4,  -11, 11, 4,  -4, 4, 11,  -4, 4, 4,  -11,
    -11, -4, -4, -4, -11, -4, -4, -4, -11, 11, -4, -4, 4, -11, -4, 4, -4, -11};

constexpr double kStretch = -1.0 / 6;  // (1 / sqrt(3 + 1) - 1) / 3
constexpr double kSquish = 1.0 / 3;    // (sqrt(3 + 1) - 1) / 3
constexpr double kNorm = 103;

uint64_t lcg(uint64_t s) { return s * 6364136223846793005ull + 1442695040888963407ull; }

}  // namespace

SimplexNoise::SimplexNoise(int64_t seed) {
  std::array<int64_t, 256> source;
  for (int i = 0; i < 256; ++i) source[i] = i;
  uint64_t s = static_cast<uint64_t>(seed);
  for (int k = 0; k < 3; ++k) s = lcg(s);
  for (int i = 255; i >= 0; --i) {
    s = lcg(s);
    // Python's (seed + 31) % (i + 1) on the signed 64-bit state, without overflow.
    const __int128 shifted = static_cast<__int128>(static_cast<int64_t>(s)) + 31;
    int64_t r = static_cast<int64_t>(shifted % (i + 1));
    if (r < 0) r += i + 1;
    perm_[i] = source[r];
    grad_index_[i] = perm_[i] % 24 * 3;
    source[r] = source[i];
  }
}

void SimplexNoise::add(double& value, const Vertex& v) const {
  double attn = 2 - v.dx * v.dx - v.dy * v.dy - v.dz * v.dz;
  if (!(attn > 0)) return;
  attn *= attn;
  const int64_t g = grad_index_[(perm_[(perm_[v.x & 0xFF] + v.y) & 0xFF] + v.z) & 0xFF];
  const double extrapolated = kGradients3[g] * v.dx + kGradients3[g + 1] * v.dy + kGradients3[g + 2] * v.dz;
  value += attn * attn * extrapolated;
}

double SimplexNoise::noise3(double x, double y, double z) const {
  constexpr double S = kSquish;
  const double stretch = (x + y + z) * kStretch;
  const double xs = x + stretch, ys = y + stretch, zs = z + stretch;
  const int64_t xsb = static_cast<int64_t>(std::floor(xs)), ysb = static_cast<int64_t>(std::floor(ys)),
                zsb = static_cast<int64_t>(std::floor(zs));
  const double squish = static_cast<double>(xsb + ysb + zsb) * S;
  const double xins = xs - static_cast<double>(xsb), yins = ys - static_cast<double>(ysb),
               zins = zs - static_cast<double>(zsb);
  const double in_sum = xins + yins + zins;
  const double dx0 = x - (static_cast<double>(xsb) + squish), dy0 = y - (static_cast<double>(ysb) + squish),
               dz0 = z - (static_cast<double>(zsb) + squish);

  Vertex e0{}, e1{};  // the two extra lattice points that may contribute
  double value = 0;
  if (in_sum <= 1) {  // inside the tetrahedron at (0,0,0)
    int a_point = 1, b_point = 2;
    double a_score = xins, b_score = yins;
    if (a_score >= b_score && zins > b_score) {
      b_score = zins;
      b_point = 4;
    } else if (a_score < b_score && zins > a_score) {
      a_score = zins;
      a_point = 4;
    }
    const double wins = 1 - in_sum;
    if (wins > a_score || wins > b_score) {  // (0,0,0) is one of the closest two vertices
      const int c = b_score > a_score ? b_point : a_point;
      if ((c & 1) == 0) {
        e0.x = xsb - 1, e1.x = xsb, e0.dx = dx0 + 1, e1.dx = dx0;
      } else {
        e0.x = e1.x = xsb + 1, e0.dx = e1.dx = dx0 - 1;
      }
      if ((c & 2) == 0) {
        e0.y = e1.y = ysb, e0.dy = e1.dy = dy0;
        if ((c & 1) == 0) {
          e1.y -= 1, e1.dy += 1;
        } else {
          e0.y -= 1, e0.dy += 1;
        }
      } else {
        e0.y = e1.y = ysb + 1, e0.dy = e1.dy = dy0 - 1;
      }
      if ((c & 4) == 0) {
        e0.z = zsb, e1.z = zsb - 1, e0.dz = dz0, e1.dz = dz0 + 1;
      } else {
        e0.z = e1.z = zsb + 1, e0.dz = e1.dz = dz0 - 1;
      }
    } else {  // the two extra vertices follow from the closest two
      const int c = a_point | b_point;
      if ((c & 1) == 0) {
        e0.x = xsb, e1.x = xsb - 1, e0.dx = dx0 - 2 * S, e1.dx = dx0 + 1 - S;
      } else {
        e0.x = e1.x = xsb + 1, e0.dx = dx0 - 1 - 2 * S, e1.dx = dx0 - 1 - S;
      }
      if ((c & 2) == 0) {
        e0.y = ysb, e1.y = ysb - 1, e0.dy = dy0 - 2 * S, e1.dy = dy0 + 1 - S;
      } else {
        e0.y = e1.y = ysb + 1, e0.dy = dy0 - 1 - 2 * S, e1.dy = dy0 - 1 - S;
      }
      if ((c & 4) == 0) {
        e0.z = zsb, e1.z = zsb - 1, e0.dz = dz0 - 2 * S, e1.dz = dz0 + 1 - S;
      } else {
        e0.z = e1.z = zsb + 1, e0.dz = dz0 - 1 - 2 * S, e1.dz = dz0 - 1 - S;
      }
    }
    const double dy1 = dy0 - S, dz1 = dz0 - S, dx2 = dx0 - S;
    add(value, {dx0, dy0, dz0, xsb, ysb, zsb});
    add(value, {dx0 - 1 - S, dy1, dz1, xsb + 1, ysb, zsb});
    add(value, {dx2, dy0 - 1 - S, dz1, xsb, ysb + 1, zsb});
    add(value, {dx2, dy1, dz0 - 1 - S, xsb, ysb, zsb + 1});
  } else if (in_sum >= 2) {  // inside the tetrahedron at (1,1,1)
    int a_point = 6, b_point = 5;
    double a_score = xins, b_score = yins;
    if (a_score <= b_score && zins < b_score) {
      b_score = zins;
      b_point = 3;
    } else if (a_score > b_score && zins < a_score) {
      a_score = zins;
      a_point = 3;
    }
    const double wins = 3 - in_sum;
    if (wins < a_score || wins < b_score) {  // (1,1,1) is one of the closest two vertices
      const int c = b_score < a_score ? b_point : a_point;
      if (c & 1) {
        e0.x = xsb + 2, e1.x = xsb + 1, e0.dx = dx0 - 2 - 3 * S, e1.dx = dx0 - 1 - 3 * S;
      } else {
        e0.x = e1.x = xsb, e0.dx = e1.dx = dx0 - 3 * S;
      }
      if (c & 2) {
        e0.y = e1.y = ysb + 1, e0.dy = e1.dy = dy0 - 1 - 3 * S;
        if (c & 1) {
          e1.y += 1, e1.dy -= 1;
        } else {
          e0.y += 1, e0.dy -= 1;
        }
      } else {
        e0.y = e1.y = ysb, e0.dy = e1.dy = dy0 - 3 * S;
      }
      if (c & 4) {
        e0.z = zsb + 1, e1.z = zsb + 2, e0.dz = dz0 - 1 - 3 * S, e1.dz = dz0 - 2 - 3 * S;
      } else {
        e0.z = e1.z = zsb, e0.dz = e1.dz = dz0 - 3 * S;
      }
    } else {
      const int c = a_point & b_point;
      if (c & 1) {
        e0.x = xsb + 1, e1.x = xsb + 2, e0.dx = dx0 - 1 - S, e1.dx = dx0 - 2 - 2 * S;
      } else {
        e0.x = e1.x = xsb, e0.dx = dx0 - S, e1.dx = dx0 - 2 * S;
      }
      if (c & 2) {
        e0.y = ysb + 1, e1.y = ysb + 2, e0.dy = dy0 - 1 - S, e1.dy = dy0 - 2 - 2 * S;
      } else {
        e0.y = e1.y = ysb, e0.dy = dy0 - S, e1.dy = dy0 - 2 * S;
      }
      if (c & 4) {
        e0.z = zsb + 1, e1.z = zsb + 2, e0.dz = dz0 - 1 - S, e1.dz = dz0 - 2 - 2 * S;
      } else {
        e0.z = e1.z = zsb, e0.dz = dz0 - S, e1.dz = dz0 - 2 * S;
      }
    }
    const double dx3 = dx0 - 1 - 2 * S, dy3 = dy0 - 1 - 2 * S, dz2 = dz0 - 1 - 2 * S;
    add(value, {dx3, dy3, dz0 - 2 * S, xsb + 1, ysb + 1, zsb});
    add(value, {dx3, dy0 - 2 * S, dz2, xsb + 1, ysb, zsb + 1});
    add(value, {dx0 - 2 * S, dy3, dz2, xsb, ysb + 1, zsb + 1});
    add(value, {dx0 - 1 - 3 * S, dy0 - 1 - 3 * S, dz0 - 1 - 3 * S, xsb + 1, ysb + 1, zsb + 1});
  } else {  // inside the octahedron between them
    double a_score, b_score;
    int a_point, b_point;
    bool a_far, b_far;
    const double p1 = xins + yins;
    if (p1 > 1) {
      a_score = p1 - 1, a_point = 3, a_far = true;
    } else {
      a_score = 1 - p1, a_point = 4, a_far = false;
    }
    const double p2 = xins + zins;
    if (p2 > 1) {
      b_score = p2 - 1, b_point = 5, b_far = true;
    } else {
      b_score = 1 - p2, b_point = 2, b_far = false;
    }
    const double p3 = yins + zins;
    if (p3 > 1) {
      const double score = p3 - 1;
      if (a_score <= b_score && a_score < score) {
        a_point = 6, a_far = true;
      } else if (a_score > b_score && b_score < score) {
        b_point = 6, b_far = true;
      }
    } else {
      const double score = 1 - p3;
      if (a_score <= b_score && a_score < score) {
        a_point = 1, a_far = false;
      } else if (a_score > b_score && b_score < score) {
        b_point = 1, b_far = false;
      }
    }
    // A permutation of (1,1,-1) next to vertex (1,1,1) missing the axes not in `c`.
    auto one_one_minus_one = [&](int c) -> Vertex {
      if ((c & 1) == 0) return {dx0 + 1 - S, dy0 - 1 - S, dz0 - 1 - S, xsb - 1, ysb + 1, zsb + 1};
      if ((c & 2) == 0) return {dx0 - 1 - S, dy0 + 1 - S, dz0 - 1 - S, xsb + 1, ysb - 1, zsb + 1};
      return {dx0 - 1 - S, dy0 - 1 - S, dz0 + 1 - S, xsb + 1, ysb + 1, zsb - 1};
    };
    if (a_far == b_far) {
      if (a_far) {  // both closest points on the (1,1,1) side
        e0 = {dx0 - 1 - 3 * S, dy0 - 1 - 3 * S, dz0 - 1 - 3 * S, xsb + 1, ysb + 1, zsb + 1};
        const int c = a_point & b_point;
        if (c & 1) {
          e1 = {dx0 - 2 - 2 * S, dy0 - 2 * S, dz0 - 2 * S, xsb + 2, ysb, zsb};
        } else if (c & 2) {
          e1 = {dx0 - 2 * S, dy0 - 2 - 2 * S, dz0 - 2 * S, xsb, ysb + 2, zsb};
        } else {
          e1 = {dx0 - 2 * S, dy0 - 2 * S, dz0 - 2 - 2 * S, xsb, ysb, zsb + 2};
        }
      } else {  // both on the (0,0,0) side
        e0 = {dx0, dy0, dz0, xsb, ysb, zsb};
        e1 = one_one_minus_one(a_point | b_point);
      }
    } else {  // one on each side
      const int c1 = a_far ? a_point : b_point, c2 = a_far ? b_point : a_point;
      e0 = one_one_minus_one(c1);
      e1 = {dx0 - 2 * S, dy0 - 2 * S, dz0 - 2 * S, xsb, ysb, zsb};
      if (c2 & 1) {
        e1.dx -= 2, e1.x += 2;
      } else if (c2 & 2) {
        e1.dy -= 2, e1.y += 2;
      } else {
        e1.dz -= 2, e1.z += 2;
      }
    }
    const double dy1 = dy0 - S, dz1 = dz0 - S, dx2 = dx0 - S;
    add(value, {dx0 - 1 - S, dy1, dz1, xsb + 1, ysb, zsb});
    add(value, {dx2, dy0 - 1 - S, dz1, xsb, ysb + 1, zsb});
    add(value, {dx2, dy1, dz0 - 1 - S, xsb, ysb, zsb + 1});
    const double dx4 = dx0 - 1 - 2 * S, dy4 = dy0 - 1 - 2 * S, dz5 = dz0 - 1 - 2 * S;
    add(value, {dx4, dy4, dz0 - 2 * S, xsb + 1, ysb + 1, zsb});
    add(value, {dx4, dy0 - 2 * S, dz5, xsb + 1, ysb, zsb + 1});
    add(value, {dx0 - 2 * S, dy4, dz5, xsb, ysb + 1, zsb + 1});
  }
  add(value, e0);
  add(value, e1);
  return value / kNorm;
}

}  // namespace envhive::crafter
