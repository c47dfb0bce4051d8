// What the toy-text tasks share: gymnasium.envs.toy_text.utils.categorical_sample, and an
// outcome of a transition as Gymnasium's P[s][a] lists hold them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../core/rng.h"

namespace envhive::toy_text {

// (probability, next state, reward, terminated): one entry of Gymnasium's P[s][a].
struct Outcome {
  double prob;
  int64_t state;
  double reward;
  bool terminated;
};

// categorical_sample(probs, np_random): one random() draw; the first index whose running sum
// (np.cumsum: float64, left to right) exceeds it, or 0 when none does (np.argmax of all False).
template <class Prob>
size_t categorical_sample(size_t n, const Prob& prob, Pcg64& rng) {
  const double r = rng.next_double();
  double cumulative = 0.0;
  for (size_t i = 0; i < n; ++i) {
    cumulative += prob(i);
    if (cumulative > r) return i;
  }
  return 0;
}

// A transition's outcomes (at most three: the intended move and two slips), sampled as Gymnasium
// samples P[s][a].
struct Outcomes {
  Outcome item[3];
  size_t n = 0;
  void add(Outcome o) { item[n++] = o; }
  const Outcome& sample(Pcg64& rng) const {
    return item[categorical_sample(n, [this](size_t i) { return item[i].prob; }, rng)];
  }
};

}  // namespace envhive::toy_text
