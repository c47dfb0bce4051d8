// simple_adversary_v3 (mpe2 1.1.1 mpe2/simple_adversary): N good agents and one adversary; only
// the good agents know which of the N landmarks is the goal. The adversary is rewarded for its
// closeness to the goal; the good agents for their nearest member's closeness and the adversary's
// distance.
#include <memory>

#include "partial_observability.h"
#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimpleAdversary final : public Scenario {
 public:
  explicit SimpleAdversary(const Config& c)
      : n_(static_cast<size_t>(c.integer_in("N", 1, kMaxAgents - 1, " (good agents and landmarks; one adversary more)"))),
        limits_(NeighborLimits::from(c)) {
    world.build(n_ + 1, n_, 2);
    for (size_t i = 0; i < n_ + 1; ++i) {
      agent_names.push_back(i == 0 ? "adversary_0" : "agent_" + std::to_string(i - 1));
      Entity& a = world.agent(i);
      a.collide = false;
      a.size = 0.15;
      world.silent[i] = 1;
    }
    for (size_t i = 0; i < n_; ++i) {
      Entity& l = world.landmark(i);
      l.collide = false;
      l.movable = false;
      l.size = 0.08;
    }
  }

  void reset_world(Pcg64& rng) override {
    set_color(world.agent(0), 0.85, 0.35, 0.35);
    for (size_t i = 1; i <= n_; ++i) set_color(world.agent(i), 0.35, 0.35, 0.85);
    for (size_t i = 0; i < n_; ++i) set_color(world.landmark(i), 0.15, 0.15, 0.15);
    goal_ = static_cast<size_t>(rng.integers(0, static_cast<int64_t>(n_)));
    set_color(world.landmark(goal_), 0.15, 0.65, 0.15);
    world.clear_motion();
    for (size_t i = 0; i <= n_; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < n_; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  double reward(size_t agent) override {
    const double* goal = world.landmark(goal_).pos;
    if (agent == 0) return -distance(world.agent(0).pos, goal);
    const double adv_rew = 0.0 + distance(world.agent(0).pos, goal);  // sum over the one adversary
    double nearest = 0;
    for (size_t i = 1; i <= n_; ++i) {
      const double d = distance(world.agent(i).pos, goal);
      if (i == 1 || d < nearest) nearest = d;
    }
    return -nearest + adv_rew;
  }

  size_t observation_size(size_t agent) const override {
    const size_t landmarks = limits_.landmarks ? limits_.landmarks : n_;
    const size_t others = limits_.agents ? limits_.agents : n_;
    return (agent == 0 ? 0 : 2) + 2 * landmarks + 2 * others;
  }
  void observation(size_t agent, double* out) const override {
    const Entity& me = world.agent(agent);
    ObsWriter w{out};
    if (agent != 0) w.rel(world.landmark(goal_).pos, me.pos);
    candidates_.clear();
    for (size_t l = 0; l < n_; ++l) candidates_.push_back(n_ + 1 + l);
    put_nearest(w, me.pos, limits_.landmarks);
    candidates_.clear();
    for (size_t i = 0; i <= n_; ++i)
      if (i != agent) candidates_.push_back(i);
    put_nearest(w, me.pos, limits_.agents);
  }

 private:
  // The relative positions of candidates_: every one (limit 0), or the `limit` nearest, zero-padded.
  void put_nearest(ObsWriter& w, const double* from, size_t limit) const {
    if (!limit) {
      for (size_t e : candidates_) w.rel(world.entities[e].pos, from);
      return;
    }
    write_nearest_positions(w, world, from, candidates_, limit, chosen_);
  }

  size_t n_;
  NeighborLimits limits_;
  size_t goal_ = 0;
  mutable std::vector<size_t> candidates_, chosen_;
};

std::vector<ConfigField> fields() {
  std::vector<ConfigField> f = {{"N", int64_t{2}, "Number of good agents and of landmarks."}};
  for (auto& field : NeighborLimits::fields()) f.push_back(std::move(field));
  return f;
}
std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleAdversary>(c); }

}  // namespace

ScenarioDef simple_adversary_def() {
  return {.name = "simple_adversary",
          .version = 3,
          .doc = "MPE simple_adversary: N good agents hide the goal landmark from one adversary (mpe2 simple_adversary_v3).",
          .fields = fields,
          .make = make};
}

}  // namespace envhive::mpe
