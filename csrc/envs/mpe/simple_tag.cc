// simple_tag_v3 (mpe2 1.1.1 mpe2/simple_tag): predator-prey. Slower adversaries are rewarded
// (+10 each, all of them) for every contact between a good agent and an adversary; good agents
// lose 10 per adversary touching them and pay for leaving the arena. Obstacles block both.
#include <cmath>
#include <memory>

#include "numerics.h"
#include "partial_observability.h"
#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimpleTag final : public Scenario {
 public:
  explicit SimpleTag(const Config& c)
      : good_(static_cast<size_t>(c.integer_in("num_good", 0, kMaxAgents, " (good agents)"))),
        adversaries_(static_cast<size_t>(c.integer_in("num_adversaries", 0, kMaxAgents, " (adversaries)"))),
        obstacles_(static_cast<size_t>(c.integer_in("num_obstacles", 0, kMaxLandmarks, " (obstacles)"))),
        terminate_on_success_(c.flag("terminate_on_success")),
        curriculum_(c.flag("curriculum")),
        limits_(NeighborLimits::from(c)) {
    const size_t n = good_ + adversaries_;
    if (n < 1 || n > static_cast<size_t>(kMaxAgents))
      throw std::invalid_argument("num_good + num_adversaries must be in [1, " + std::to_string(kMaxAgents) +
                                  "] (one observation each), got " + std::to_string(n));
    world.build(n, obstacles_, 2);
    for (size_t i = 0; i < n; ++i) {
      const bool adversary = i < adversaries_;
      agent_names.push_back(adversary ? "adversary_" + std::to_string(i) : "agent_" + std::to_string(i - adversaries_));
      Entity& a = world.agent(i);
      a.collide = true;
      a.size = adversary ? 0.075 : 0.05;
      a.accel = adversary ? 3.0 : 4.0;
      a.has_accel = true;
      a.max_speed = adversary ? 1.0 : 1.3;
      a.has_max_speed = true;
      world.silent[i] = 1;
    }
    for (size_t i = 0; i < obstacles_; ++i) {
      Entity& l = world.landmark(i);
      l.collide = true;
      l.movable = false;
      l.size = 0.2;
    }
  }

  void reset_world(Pcg64& rng) override {
    const size_t n = good_ + adversaries_;
    for (size_t i = 0; i < n; ++i) {
      if (is_adversary(i)) set_color(world.agent(i), 0.85, 0.35, 0.35);
      else set_color(world.agent(i), 0.35, 0.85, 0.35);
    }
    for (size_t i = 0; i < obstacles_; ++i) set_color(world.landmark(i), 0.25, 0.25, 0.25);
    world.clear_motion();
    for (size_t i = 0; i < n; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < obstacles_; ++i) draw_position(world.landmark(i), rng, -0.9, 0.9);
    if (curriculum_) {  // curriculum stage 0 (mpe2 1.1.1's only one): the prey at half speed and acceleration
      for (size_t i = adversaries_; i < n; ++i) {
        world.agent(i).max_speed = 1.3 * 0.5;
        world.agent(i).accel = 4.0 * 0.5;
      }
    }
  }

  double reward(size_t agent) override {
    const size_t n = good_ + adversaries_;
    double rew = 0;
    if (is_adversary(agent)) {
      for (size_t g = adversaries_; g < n; ++g)
        for (size_t a = 0; a < adversaries_; ++a)
          if (touching(world.agent(g), world.agent(a))) rew += 10;
      return rew;
    }
    for (size_t a = 0; a < adversaries_; ++a)
      if (touching(world.agent(a), world.agent(agent))) rew -= 10;
    for (int p = 0; p < 2; ++p) rew -= arena_bound(std::fabs(world.agent(agent).pos[p]));
    return rew;
  }

  bool is_terminal() override {
    if (!terminate_on_success_) return false;
    const size_t n = good_ + adversaries_;
    for (size_t g = adversaries_; g < n; ++g) {
      bool caught = false;
      for (size_t a = 0; a < adversaries_ && !caught; ++a) caught = touching(world.agent(g), world.agent(a));
      if (!caught) return false;
    }
    return true;
  }

  size_t observation_size(size_t agent) const override {
    const size_t n = good_ + adversaries_;
    const size_t landmarks = limits_.landmarks ? limits_.landmarks : obstacles_;
    const size_t others = limits_.agents ? limits_.agents : n - 1;
    const size_t velocities = limits_.agents ? limits_.agents : good_ - (is_adversary(agent) ? 0 : 1);
    return 4 + 2 * landmarks + 2 * others + 2 * velocities;
  }
  void observation(size_t agent, double* out) const override {
    const size_t n = good_ + adversaries_;
    const Entity& me = world.agent(agent);
    ObsWriter w{out};
    w.put2(me.vel);
    w.put2(me.pos);
    if (limits_.landmarks) {
      candidates_.clear();
      for (size_t l = 0; l < obstacles_; ++l) candidates_.push_back(n + l);
      write_nearest_positions(w, world, me.pos, candidates_, limits_.landmarks, chosen_);
    } else {
      for (size_t l = 0; l < obstacles_; ++l) w.rel(world.landmark(l).pos, me.pos);
    }
    if (limits_.agents) {
      candidates_.clear();
      for (size_t i = 0; i < n; ++i)
        if (i != agent) candidates_.push_back(i);
      write_nearest_positions(w, world, me.pos, candidates_, limits_.agents, chosen_);
      for (size_t e : chosen_) w.put2(is_adversary(e) ? kZero2 : world.entities[e].vel);
      for (size_t k = chosen_.size(); k < limits_.agents; ++k) w.put2(kZero2);
      return;
    }
    for (size_t i = 0; i < n; ++i)
      if (i != agent) w.rel(world.agent(i).pos, me.pos);
    for (size_t i = adversaries_; i < n; ++i)
      if (i != agent) w.put2(world.agent(i).vel);
  }

 private:
  bool is_adversary(size_t i) const { return i < adversaries_; }

  size_t good_, adversaries_, obstacles_;
  bool terminate_on_success_;
  bool curriculum_;
  NeighborLimits limits_;
  mutable std::vector<size_t> candidates_, chosen_;
};

std::vector<ConfigField> fields() {
  return {{"num_good", int64_t{1}, "Number of good agents (prey)."},
          {"num_adversaries", int64_t{3}, "Number of adversaries (predators)."},
          {"num_obstacles", int64_t{2}, "Number of obstacles."},
          NeighborLimits::fields()[0],
          NeighborLimits::fields()[1]};
}
std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleTag>(c); }

}  // namespace

ScenarioDef simple_tag_def() {
  return {.name = "simple_tag",
          .version = 3,
          .doc = "MPE simple_tag: slower adversaries chase faster good agents around obstacles (mpe2 simple_tag_v3).",
          .fields = fields,
          .make = make,
          .terminate_option = true,
          .curriculum = true};
}

}  // namespace envhive::mpe
