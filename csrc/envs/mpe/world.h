// The particle world every MPE scenario moves in (mpe2 1.1.1, mpe2/_mpe_utils/core.py World):
// entities are the agents first, then the landmarks; a step applies the agents' forces, the soft
// contact forces between colliding entities, integrates with damping and a speed cap, then sets
// each agent's communication state. Every expression keeps mpe2's numpy operand order (float64);
// np.square / np.sqrt / np.sum of two elements are exact IEEE operations, np.logaddexp is numpy's
// scalar loop (libm exp and log1p; no SIMD variant in numpy 2.x: checked under every dispatch
// setting by the lock-step tests).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace envhive::mpe {

struct Entity {
  double pos[2] = {0.0, 0.0};
  double vel[2] = {0.0, 0.0};
  double size = 0.05;
  bool movable = false;
  bool collide = true;
  double mass = 1.0;
  double max_speed = 0.0;  // used when has_max_speed (mpe2: max_speed is not None)
  bool has_max_speed = false;
  double accel = 0.0;  // used when has_accel (mpe2: accel is not None)
  bool has_accel = false;
  double color[3] = {0.0, 0.0, 0.0};
};

// np.sqrt(np.sum(np.square(a - b))) of two 2-vectors.
inline double distance(const double* a, const double* b) {
  const double d0 = a[0] - b[0], d1 = a[1] - b[1];
  return std::sqrt(0.0 + d0 * d0 + d1 * d1);
}
// np.sum(np.square(a - b)) of two 2-vectors.
inline double distance_squared(const double* a, const double* b) {
  const double d0 = a[0] - b[0], d1 = a[1] - b[1];
  return 0.0 + d0 * d0 + d1 * d1;
}
// mpe2's is_collision: distance below the sum of the sizes.
inline bool touching(const Entity& a, const Entity& b) { return distance(a.pos, b.pos) < a.size + b.size; }

// np.logaddexp(0, x) for a float64 scalar (numpy's npy_logaddexp).
double logaddexp0(double x);

class World {
 public:
  static constexpr double kDt = 0.1;
  static constexpr double kDamping = 0.25;
  static constexpr double kContactForce = 1e2;
  static constexpr double kContactMargin = 1e-3;

  // n_agents agents followed by n_landmarks landmarks; dim_c communication channels.
  void build(size_t n_agents, size_t n_landmarks, size_t dim_c);

  size_t num_agents() const { return num_agents_; }
  size_t num_landmarks() const { return entities.size() - num_agents_; }
  size_t dim_c() const { return dim_c_; }
  Entity& agent(size_t i) { return entities[i]; }
  const Entity& agent(size_t i) const { return entities[i]; }
  Entity& landmark(size_t i) { return entities[num_agents_ + i]; }
  const Entity& landmark(size_t i) const { return entities[num_agents_ + i]; }
  // The agent's communication state (agent.state.c), dim_c values.
  double* comm(size_t i) { return comm_.data() + i * dim_c_; }
  const double* comm(size_t i) const { return comm_.data() + i * dim_c_; }
  // The agent's action for this step: physical force u (2) and communication c (dim_c).
  double* action_u(size_t i) { return action_u_.data() + 2 * i; }
  double* action_c(size_t i) { return action_c_.data() + i * dim_c_; }

  // Zeroes the velocities and communication states (the part of reset_world every scenario does).
  void clear_motion();
  // World.step(): forces, integration, communication states.
  void step();

  std::vector<Entity> entities;
  std::vector<uint8_t> silent;  // per agent

 private:
  size_t num_agents_ = 0, dim_c_ = 0;
  std::vector<double> comm_, action_u_, action_c_;
  std::vector<double> force_;        // 2 per entity
  std::vector<uint8_t> has_force_;   // per entity (mpe2: p_force[i] is not None)
};

}  // namespace envhive::mpe
