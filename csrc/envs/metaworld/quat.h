// scipy.spatial.transform.Rotation.from_matrix(m).as_quat() for a rotation matrix MuJoCo computed
// (orthogonal to far better than scipy's 1e-12 check, so its SVD branch never runs): scipy's
// Cython backend, _from_matrix_orthogonal, x y z w order. Checked bit for bit against scipy
// (tests/families/metaworld/test_metaworld_numerics.py).
#pragma once

namespace envhive::metaworld {

// xmat: 9 values, row-major (MuJoCo's xmat, as .reshape(3, 3) reads it); q: x, y, z, w.
inline void quat_from_matrix(const double* xmat, double* q) {
  const auto m = [xmat](int i, int j) { return xmat[3 * i + j]; };
  const double decision[4] = {m(0, 0), m(1, 1), m(2, 2), m(0, 0) + m(1, 1) + m(2, 2)};
  int choice = 0;
  double vmax = decision[0];
  for (int i = 1; i < 4; ++i)
    if (decision[i] > vmax) {
      choice = i;
      vmax = decision[i];
    }
  if (choice != 3) {
    const int i = choice, j = (i + 1) % 3, k = (j + 1) % 3;
    q[i] = 1 - decision[3] + 2 * m(i, i);
    q[j] = m(j, i) + m(i, j);
    q[k] = m(k, i) + m(i, k);
    q[3] = m(k, j) - m(j, k);
  } else {
    q[0] = m(2, 1) - m(1, 2);
    q[1] = m(0, 2) - m(2, 0);
    q[2] = m(1, 0) - m(0, 1);
    q[3] = 1 + decision[3];
  }
  const double norm = __builtin_sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= norm;
}

}  // namespace envhive::metaworld
