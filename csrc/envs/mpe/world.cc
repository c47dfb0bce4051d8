#include "world.h"

namespace envhive::mpe {

double logaddexp0(double x) {
  // npy_logaddexp(0, x): x == y gives x + log(2); else the larger plus log1p(exp(-|difference|)).
  constexpr double kLn2 = 0.693147180559945309417232121458176568;
  if (x == 0.0) return 0.0 + kLn2;
  const double tmp = 0.0 - x;
  if (tmp > 0) return 0.0 + std::log1p(std::exp(-tmp));
  if (tmp <= 0) return x + std::log1p(std::exp(tmp));
  return tmp;  // NaN
}

void World::build(size_t n_agents, size_t n_landmarks, size_t dim_c) {
  num_agents_ = n_agents;
  dim_c_ = dim_c;
  entities.assign(n_agents + n_landmarks, Entity{});
  for (size_t i = 0; i < n_agents; ++i) entities[i].movable = true;  // mpe2's Agent: movable by default
  silent.assign(n_agents, 0);
  comm_.assign(n_agents * dim_c, 0.0);
  action_u_.assign(2 * n_agents, 0.0);
  action_c_.assign(n_agents * dim_c, 0.0);
  force_.assign(2 * entities.size(), 0.0);
  has_force_.assign(entities.size(), 0);
}

void World::clear_motion() {
  for (auto& e : entities) e.vel[0] = e.vel[1] = 0.0;
  for (double& c : comm_) c = 0.0;
}

void World::step() {
  const size_t n = entities.size();
  // apply_action_force: p_force[i] = u + 0.0 (no motor noise in any scenario).
  for (size_t i = 0; i < n; ++i) has_force_[i] = 0;
  for (size_t i = 0; i < num_agents_; ++i) {
    if (!entities[i].movable) continue;
    force_[2 * i] = action_u_[2 * i] + 0.0;
    force_[2 * i + 1] = action_u_[2 * i + 1] + 0.0;
    has_force_[i] = 1;
  }
  // apply_environment_force: every pair a < b of colliding entities (a None force counts as 0.0).
  for (size_t a = 0; a < n; ++a) {
    const Entity& ea = entities[a];
    if (!ea.collide) continue;
    for (size_t b = a + 1; b < n; ++b) {
      const Entity& eb = entities[b];
      if (!eb.collide || (!ea.movable && !eb.movable)) continue;
      const double delta[2] = {ea.pos[0] - eb.pos[0], ea.pos[1] - eb.pos[1]};
      const double dist = std::sqrt(0.0 + delta[0] * delta[0] + delta[1] * delta[1]);
      const double dist_min = ea.size + eb.size;
      const double penetration = logaddexp0(-(dist - dist_min) / kContactMargin) * kContactMargin;
      for (int k = 0; k < 2; ++k) {
        const double f = kContactForce * delta[k] / dist * penetration;
        if (ea.movable) force_[2 * a + k] = f + (has_force_[a] ? force_[2 * a + k] : 0.0);
        if (eb.movable) force_[2 * b + k] = -f + (has_force_[b] ? force_[2 * b + k] : 0.0);
      }
      if (ea.movable) has_force_[a] = 1;
      if (eb.movable) has_force_[b] = 1;
    }
  }
  // integrate_state
  for (size_t i = 0; i < n; ++i) {
    Entity& e = entities[i];
    if (!e.movable) continue;
    e.pos[0] += e.vel[0] * kDt;
    e.pos[1] += e.vel[1] * kDt;
    e.vel[0] = e.vel[0] * (1 - kDamping);
    e.vel[1] = e.vel[1] * (1 - kDamping);
    if (has_force_[i]) {
      e.vel[0] += (force_[2 * i] / e.mass) * kDt;
      e.vel[1] += (force_[2 * i + 1] / e.mass) * kDt;
    }
    if (e.has_max_speed) {
      const double speed = std::sqrt(e.vel[0] * e.vel[0] + e.vel[1] * e.vel[1]);
      if (speed > e.max_speed) {
        e.vel[0] = e.vel[0] / speed * e.max_speed;
        e.vel[1] = e.vel[1] / speed * e.max_speed;
      }
    }
  }
  // update_agent_state: a silent agent's state is zeros, else its action plus 0.0 (no noise).
  for (size_t i = 0; i < num_agents_; ++i) {
    double* c = comm(i);
    const double* ac = action_c_.data() + i * dim_c_;
    for (size_t k = 0; k < dim_c_; ++k) c[k] = silent[i] ? 0.0 : ac[k] + 0.0;
  }
}

}  // namespace envhive::mpe
