// scipy.ndimage.zoom(a, zoom, order=3, mode='constant', prefilter=True, grid_mode=False) of a 2-d
// float64 array, with scipy's arithmetic (scipy/ndimage/src/ni_splines.c and ni_interpolation.c,
// 1.6 and later): quadruped escape's terrain is a grid of random bumps zoomed this way.
//
// What scipy does, and this code in the same order (the build has no FMA contraction):
//  - prefilter (spline_filter, float64 output): along axis 0, then axis 1, every line is scaled by
//    the cubic B-spline's gain and run through the causal / anticausal recursions of its one pole,
//    started with the mirror-boundary values ('constant' prefilters as 'mirror');
//  - zoom_shift: output index k maps to input coordinate k * ((n_in - 1) / (n_out - 1)) per axis;
//    a coordinate outside [0, n_in - 1] gives cval 0; inside, the 4 x 4 coefficients around it
//    (indices past an edge mirrored) are weighted by the cubic spline's weights and summed in
//    scipy's order: axis-0 offset outer, axis-1 inner, each term (c * w0) * w1.
// tests/families/dmc/test_dmc_kwargs.py compares it with scipy.ndimage.zoom bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace envhive::dmc {

namespace spline_zoom_detail {

// The cubic B-spline's pole, sqrt(3) - 2, as scipy writes it (get_filter_poles).
inline constexpr double kCubicPole = -0.267949192431122706472553658494127633;

// One line of coefficients (n >= 2), in place: gain, then the causal and anticausal passes
// (apply_filter with _init_causal_mirror / _init_anticausal_mirror).
inline void filter_line(double* c, int64_t n) {
  const double z = kCubicPole;
  const double gain = 1.0 * ((1.0 - z) * (1.0 - 1.0 / z));
  for (int64_t i = 0; i < n; ++i) c[i] *= gain;
  // causal initialisation, mirror boundary
  double z_i = z;
  const double z_n_1 = std::pow(z, static_cast<double>(n - 1));
  c[0] = c[0] + z_n_1 * c[n - 1];
  for (int64_t i = 1; i < n - 1; ++i) {
    c[0] += z_i * (c[i] + z_n_1 * c[n - 1 - i]);
    z_i *= z;
  }
  c[0] /= 1 - z_n_1 * z_n_1;
  for (int64_t i = 1; i < n; ++i) c[i] += z * c[i - 1];
  // anticausal initialisation, mirror boundary
  c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1);
  for (int64_t i = n - 2; i >= 0; --i) c[i] = z * (c[i + 1] - c[i]);
}

// ni_interpolation.c's map_coordinate for 'mirror' (the spline's boundary under 'constant'), on an
// integer index.
inline int64_t mirror_index(int64_t idx, int64_t len) {
  if (len <= 1) return 0;
  const int64_t s2 = 2 * len - 2;
  if (idx < 0) {
    idx = s2 * (-idx / s2) + idx;
    idx = idx <= 1 - len ? idx + s2 : -idx;
  } else if (idx > len - 1) {
    idx -= s2 * (idx / s2);
    if (idx >= len) idx = s2 - idx;
  }
  return idx;
}

// Where output index k of one axis reads: the first of the 4 input indices (mirrored at the edges),
// their weights, or none (outside the input: cval).
struct AxisTap {
  bool outside = false;
  int64_t index[4] = {};
  double weight[4] = {};
};

inline AxisTap axis_tap(int64_t k, double zoom, int64_t len) {
  AxisTap tap;
  const double cc = static_cast<double>(k) * zoom + 0.0;  // + nprepad (0 for 'constant')
  if (cc < 0 || cc > static_cast<double>(len - 1)) {     // map_coordinate: 'constant' -> -1
    tap.outside = true;
    return tap;
  }
  const int64_t start = static_cast<int64_t>(std::floor(cc)) - 1;
  for (int h = 0; h < 4; ++h) tap.index[h] = mirror_index(start + h, len);
  // get_spline_interpolation_weights(cc, 3)
  const double x = cc - std::floor(cc);
  const double y = x, z = 1.0 - x;
  tap.weight[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
  tap.weight[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
  tap.weight[0] = z * z * z / 6.0;
  tap.weight[3] = 1.0;
  for (int h = 0; h < 3; ++h) tap.weight[3] -= tap.weight[h];
  return tap;
}

}  // namespace spline_zoom_detail

// scipy.ndimage.zoom(in, (out_rows / rows, out_cols / cols)) of a row-major rows x cols array whose
// output shape is out_rows x out_cols (round(rows * zoom) as scipy computes it: the caller's).
inline std::vector<double> spline_zoom(const std::vector<double>& in, int64_t rows, int64_t cols, int64_t out_rows,
                                       int64_t out_cols) {
  using namespace spline_zoom_detail;
  if (rows < 1 || cols < 1 || out_rows < 1 || out_cols < 1 || static_cast<int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("spline_zoom: bad shape");
  // spline_filter: axis 0 (columns), then axis 1 (rows); a line of one element is left as is.
  std::vector<double> c = in;
  if (rows > 1) {
    std::vector<double> line(static_cast<size_t>(rows));
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) line[static_cast<size_t>(i)] = c[static_cast<size_t>(i * cols + j)];
      filter_line(line.data(), rows);
      for (int64_t i = 0; i < rows; ++i) c[static_cast<size_t>(i * cols + j)] = line[static_cast<size_t>(i)];
    }
  }
  if (cols > 1)
    for (int64_t i = 0; i < rows; ++i) filter_line(c.data() + i * cols, cols);
  // zoom factors: np.divide(in - 1, out - 1), 1 where out == 1
  const double zoom_r = out_rows > 1 ? static_cast<double>(rows - 1) / static_cast<double>(out_rows - 1) : 1.0;
  const double zoom_c = out_cols > 1 ? static_cast<double>(cols - 1) / static_cast<double>(out_cols - 1) : 1.0;
  std::vector<AxisTap> row_taps, col_taps;
  for (int64_t k = 0; k < out_rows; ++k) row_taps.push_back(axis_tap(k, zoom_r, rows));
  for (int64_t k = 0; k < out_cols; ++k) col_taps.push_back(axis_tap(k, zoom_c, cols));
  std::vector<double> out(static_cast<size_t>(out_rows * out_cols));
  for (int64_t r = 0; r < out_rows; ++r) {
    const AxisTap& tr = row_taps[static_cast<size_t>(r)];
    for (int64_t q = 0; q < out_cols; ++q) {
      const AxisTap& tc = col_taps[static_cast<size_t>(q)];
      double t = 0.0;  // cval
      if (!tr.outside && !tc.outside) {
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b) {
            double coeff = c[static_cast<size_t>(tr.index[a] * cols + tc.index[b])];
            coeff *= tr.weight[a];
            coeff *= tc.weight[b];
            t += coeff;
          }
      }
      out[static_cast<size_t>(r * out_cols + q)] = t;
    }
  }
  return out;
}

}  // namespace envhive::dmc
