// mpe2's partial observability (mpe2/_mpe_utils/partial_observability.py): an agent observes only
// its n nearest landmarks / other agents (np.linalg.norm distance, np.argsort order), the slots
// beyond those present zero-padded so the observation keeps its size. Used by simple_spread,
// simple_adversary and simple_tag (kwargs num_agent_neighbors / num_landmark_neighbors; 0 is
// mpe2's None: everything observed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../core/spec.h"
#include "scenario.h"

namespace envhive::mpe {

// The two kwargs (mpe2: a positive int or None; here 0 is None), bounded before any allocation.
struct NeighborLimits {
  size_t agents = 0, landmarks = 0;
  static NeighborLimits from(const Config& c);
  static std::vector<ConfigField> fields();
};

// nearest_entities(agent, entities, n): the entity indices (into world.entities) of the at most n
// candidates nearest to `from`, nearest first. Distances are np.linalg.norm(e.p_pos - from) (numpy's
// BLAS dot); ties keep the candidates' order (a stable argsort; numpy's AVX-512 argsort may order
// exact ties otherwise).
void nearest_entities(const World& world, const double* from, const std::vector<size_t>& candidates, size_t n,
                      std::vector<size_t>& out);

// The observation's slots of the n nearest candidates: each one's position relative to `from`,
// nearest first, then zeros for the slots beyond those present. `chosen` keeps the entities picked
// (for the slots a scenario writes after these: their velocities, their messages).
inline void write_nearest_positions(ObsWriter& w, const World& world, const double* from,
                                    const std::vector<size_t>& candidates, size_t n, std::vector<size_t>& chosen) {
  nearest_entities(world, from, candidates, n, chosen);
  for (size_t e : chosen) w.rel(world.entities[e].pos, from);
  for (size_t k = chosen.size(); k < n; ++k) w.put2(kZero2);
}

}  // namespace envhive::mpe
