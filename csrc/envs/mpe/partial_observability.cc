#include "partial_observability.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "../../core/numpy_kernels.h"

namespace envhive::mpe {

NeighborLimits NeighborLimits::from(const Config& c) {
  NeighborLimits n;
  n.agents = static_cast<size_t>(c.integer_in("num_agent_neighbors", 0, kMaxAgents, " (0: every other agent, mpe2's None)"));
  n.landmarks =
      static_cast<size_t>(c.integer_in("num_landmark_neighbors", 0, kMaxLandmarks, " (0: every landmark, mpe2's None)"));
  return n;
}

std::vector<ConfigField> NeighborLimits::fields() {
  return {{"num_agent_neighbors", int64_t{0},
           "Observe only this many nearest other agents, zero-padded (0: all, mpe2's None)."},
          {"num_landmark_neighbors", int64_t{0},
           "Observe only this many nearest landmarks, zero-padded (0: all, mpe2's None)."}};
}

void nearest_entities(const World& world, const double* from, const std::vector<size_t>& candidates, size_t n,
                      std::vector<size_t>& out) {
  std::vector<std::pair<double, size_t>> dist;
  dist.reserve(candidates.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    const Entity& e = world.entities[candidates[k]];
    const double delta[2] = {e.pos[0] - from[0], e.pos[1] - from[1]};
    dist.emplace_back(npk::norm(delta, 2), k);
  }
  std::stable_sort(dist.begin(), dist.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out.clear();
  for (size_t k = 0; k < dist.size() && k < n; ++k) out.push_back(candidates[dist[k].second]);
}

}  // namespace envhive::mpe
