// simple_spread_v3 (mpe2 1.1.1 mpe2/simple_spread): N agents cover N landmarks. Every agent shares
// the global reward (minus the distance from each landmark to its nearest agent), blended by
// local_ratio with its own (-1 per agent it collides with).
#include <memory>

#include "partial_observability.h"
#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimpleSpread final : public Scenario {
 public:
  static constexpr double kCaptureRadius = 0.1;

  explicit SimpleSpread(const Config& c)
      : n_(static_cast<size_t>(c.integer_in("N", 1, kMaxAgents, " (agents and landmarks; one observation each)"))),
        terminate_on_success_(c.flag("terminate_on_success")),
        curriculum_(c.flag("curriculum")),
        limits_(NeighborLimits::from(c)) {
    world.build(n_, n_, 2);
    for (size_t i = 0; i < n_; ++i) {
      agent_names.push_back("agent_" + std::to_string(i));
      Entity& a = world.agent(i);
      a.collide = true;
      a.size = 0.15;
      world.silent[i] = 1;
    }
    for (size_t i = 0; i < n_; ++i) {
      Entity& l = world.landmark(i);
      l.collide = false;
      l.movable = false;
    }
  }

  void reset_world(Pcg64& rng) override {
    for (size_t i = 0; i < n_; ++i) set_color(world.agent(i), 0.35, 0.35, 0.85);
    for (size_t i = 0; i < n_; ++i) set_color(world.landmark(i), 0.25, 0.25, 0.25);
    world.clear_motion();
    for (size_t i = 0; i < n_; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < n_; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  double reward(size_t agent) override {
    double rew = 0;
    if (curriculum_) return rew;  // curriculum stage 0 (mpe2 1.1.1's only one): no collision penalty
    const Entity& me = world.agent(agent);
    for (size_t i = 0; i < n_; ++i)
      if (i != agent && touching(world.agent(i), me)) rew -= 1.0;
    return rew;
  }

  double global_reward() override {
    double rew = 0;
    for (size_t l = 0; l < n_; ++l) rew -= nearest_agent_distance(l);
    return rew;
  }

  bool is_terminal() override {
    if (!terminate_on_success_) return false;
    for (size_t l = 0; l < n_; ++l)
      if (nearest_agent_distance(l) >= kCaptureRadius) return false;
    return true;
  }

  size_t observation_size(size_t) const override {
    const size_t landmarks = limits_.landmarks ? limits_.landmarks : n_;
    const size_t others = limits_.agents ? limits_.agents : n_ - 1;
    return 4 + 2 * landmarks + 4 * others;
  }

  void observation(size_t agent, double* out) const override {
    const Entity& me = world.agent(agent);
    ObsWriter w{out};
    w.put2(me.vel);
    w.put2(me.pos);
    if (limits_.landmarks) {
      candidates_.clear();
      for (size_t l = 0; l < n_; ++l) candidates_.push_back(n_ + l);
      write_nearest_positions(w, world, me.pos, candidates_, limits_.landmarks, chosen_);
    } else {
      for (size_t l = 0; l < n_; ++l) w.rel(world.landmark(l).pos, me.pos);
    }
    if (limits_.agents) {
      candidates_.clear();
      for (size_t i = 0; i < n_; ++i)
        if (i != agent) candidates_.push_back(i);
      write_nearest_positions(w, world, me.pos, candidates_, limits_.agents, chosen_);
      for (size_t e : chosen_) w.put_n(world.comm(e), world.dim_c());
      for (size_t k = chosen_.size(); k < limits_.agents; ++k) w.put_n(kZero2, world.dim_c());
      return;
    }
    for (size_t i = 0; i < n_; ++i)
      if (i != agent) w.rel(world.agent(i).pos, me.pos);
    for (size_t i = 0; i < n_; ++i)
      if (i != agent) w.put_n(world.comm(i), world.dim_c());
  }

 private:
  // min over agents of the distance to landmark l (Python's min: the first smallest).
  double nearest_agent_distance(size_t l) const {
    double best = 0;
    for (size_t i = 0; i < n_; ++i) {
      const double d = distance(world.agent(i).pos, world.landmark(l).pos);
      if (i == 0 || d < best) best = d;
    }
    return best;
  }

  size_t n_;
  bool terminate_on_success_;
  bool curriculum_;
  NeighborLimits limits_;
  mutable std::vector<size_t> candidates_, chosen_;
};

std::vector<ConfigField> fields() {
  std::vector<ConfigField> f = {{"N", int64_t{3}, "Number of agents and of landmarks."}};
  for (auto& field : NeighborLimits::fields()) f.push_back(std::move(field));
  return f;
}
std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleSpread>(c); }

}  // namespace

ScenarioDef simple_spread_def() {
  return {.name = "simple_spread",
          .version = 3,
          .doc = "MPE simple_spread: N cooperating agents cover N landmarks without colliding (mpe2 simple_spread_v3).",
          .fields = fields,
          .make = make,
          .local_ratio = true,
          .terminate_option = true,
          .curriculum = true};
}

}  // namespace envhive::mpe
