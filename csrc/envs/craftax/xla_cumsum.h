// jnp.cumsum of float32 as XLA's CPU backend computes it (jax 0.10.2): not a sequential sum.
// XLA rewrites the cumulative reduce-window into tiles of 16: a sequential prefix sum inside each
// tile (the last tile padded with zeros), the tiles' totals scanned the same way (recursively
// while there are more than 16 of them), and each tile's prefix plus the sum of the tiles before
// it. From the 17th or so element on, the results differ from a sequential sum in the last bits,
// enough to flip weighted choices (jax.random.choice with p) at their margins.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "jax_random.h"

namespace envhive::craftax {

inline constexpr size_t kXlaScanTile = 16;

// Inclusive prefix sums of x, written to out (same length), in XLA's CPU order.
inline void xla_cumsum(const float* x, size_t n, float* out) {
  if (n <= kXlaScanTile) {
    float acc = 0.0f;
    for (size_t i = 0; i < n; ++i) out[i] = acc = acc + x[i];
    return;
  }
  const size_t tiles = (n + kXlaScanTile - 1) / kXlaScanTile;
  std::vector<float> totals(tiles), local(tiles * kXlaScanTile);
  for (size_t t = 0; t < tiles; ++t) {
    float acc = 0.0f;
    for (size_t j = 0; j < kXlaScanTile; ++j) {
      const size_t k = t * kXlaScanTile + j;
      local[k] = acc = acc + (k < n ? x[k] : 0.0f);
    }
    totals[t] = acc;
  }
  std::vector<float> before(tiles);
  xla_cumsum(totals.data(), tiles, before.data());
  for (size_t k = 0; k < n; ++k) {
    const size_t t = k / kXlaScanTile;
    out[k] = local[k] + (t == 0 ? 0.0f : before[t - 1]);
  }
}

// jax.random.choice(key, n, p=p) with replacement, one draw (shape ()): the index of the first
// cumulative weight (XLA's cumsum) at or above total * (1 - uniform(key)).
inline size_t choice_index(Key key, const float* p, size_t n, std::vector<float>& scratch) {
  scratch.resize(n);
  xla_cumsum(p, n, scratch.data());
  const float r = scratch[n - 1] * (1.0f - uniform01(key, 0));
  return static_cast<size_t>(std::lower_bound(scratch.begin(), scratch.end(), r) - scratch.begin());
}

}  // namespace envhive::craftax
