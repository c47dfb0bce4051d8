// simple_world_comm_v3 (mpe2 1.1.1 mpe2/simple_world_comm): simple_tag with food, forests and a
// leader. Good agents eat food and hide in forests (an agent in a forest is seen only from inside
// the same forest, and by the leader); adversaries hunt them, their leader (the only agent that
// talks, 4 channels) sees everything.
#include <cmath>
#include <memory>

#include "numerics.h"
#include "scenario.h"

namespace envhive::mpe {
namespace {

constexpr size_t kDimC = 4;

class SimpleWorldComm final : public Scenario {
 public:
  explicit SimpleWorldComm(const Config& c)
      : good_(static_cast<size_t>(c.integer_in("num_good", 1, kMaxAgents, " (good agents: the adversaries' reward needs one)"))),
        adversaries_(static_cast<size_t>(c.integer_in("num_adversaries", 0, kMaxAgents, " (adversaries)"))),
        obstacles_(static_cast<size_t>(c.integer_in("num_obstacles", 0, kMaxLandmarks, " (obstacles)"))),
        food_(static_cast<size_t>(c.integer_in("num_food", 1, kMaxLandmarks, " (food: the good agents' reward needs one)"))),
        forests_(static_cast<size_t>(c.integer_in("num_forests", 0, kMaxLandmarks, " (forests)"))) {
    const size_t n = good_ + adversaries_;
    if (n > static_cast<size_t>(kMaxAgents))
      throw std::invalid_argument("num_good + num_adversaries must be at most " + std::to_string(kMaxAgents) +
                                  " (one observation each), got " + std::to_string(n));
    world.build(n, obstacles_ + food_ + forests_, kDimC);
    for (size_t i = 0; i < n; ++i) {
      const bool adversary = i < adversaries_;
      size_t index = adversary ? (i == 0 ? 0 : i - 1) : i - adversaries_;
      const std::string base = i == 0 ? "leadadversary" : (adversary ? "adversary" : "agent");
      agent_names.push_back(base + "_" + std::to_string(index));
      Entity& a = world.agent(i);
      a.collide = true;
      a.size = adversary ? 0.075 : 0.045;
      a.accel = adversary ? 3.0 : 4.0;
      a.has_accel = true;
      a.max_speed = adversary ? 1.0 : 1.3;
      a.has_max_speed = true;
      world.silent[i] = i > 0;
    }
    for (size_t l = 0; l < world.num_landmarks(); ++l) {
      Entity& e = world.landmark(l);
      e.movable = false;
      e.collide = l < obstacles_;
      e.size = l < obstacles_ ? 0.2 : (l < obstacles_ + food_ ? 0.03 : 0.3);
    }
  }

  void reset_world(Pcg64& rng) override {
    const size_t n = good_ + adversaries_;
    for (size_t i = 0; i < n; ++i) {
      Entity& a = world.agent(i);
      if (is_adversary(i)) set_color(a, 0.95, 0.45, 0.45);
      else set_color(a, 0.45, 0.95, 0.45);
      const double shade = i == 0 ? 0.3 : 0.0;  // color -= [0.3] * 3 for the leader, [0] * 3 (ints) else
      for (double& v : a.color) v = i == 0 ? v - shade : v - 0;
    }
    for (size_t l = 0; l < world.num_landmarks(); ++l) set_color(world.landmark(l), 0.25, 0.25, 0.25);
    for (size_t l = 0; l < food_; ++l) set_color(food(l), 0.15, 0.15, 0.65);
    for (size_t l = 0; l < forests_; ++l) set_color(forest(l), 0.6, 0.9, 0.6);
    world.clear_motion();
    for (size_t i = 0; i < n; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t l = 0; l < world.num_landmarks(); ++l) draw_position(world.landmark(l), rng, -0.9, 0.9);
    for (size_t l = 0; l < food_; ++l) draw_position(food(l), rng, -0.9, 0.9);
    for (size_t l = 0; l < forests_; ++l) draw_position(forest(l), rng, -0.9, 0.9);
  }

  double reward(size_t agent) override {
    const size_t n = good_ + adversaries_;
    const Entity& me = world.agent(agent);
    double rew = 0;
    if (is_adversary(agent)) {
      double nearest = 0;
      for (size_t g = adversaries_; g < n; ++g) {
        const double d = distance(world.agent(g).pos, me.pos);
        if (g == adversaries_ || d < nearest) nearest = d;
      }
      rew -= 0.1 * nearest;
      for (size_t g = adversaries_; g < n; ++g)
        for (size_t a = 0; a < adversaries_; ++a)
          if (touching(world.agent(g), world.agent(a))) rew += 5;
      return rew;
    }
    for (size_t a = 0; a < adversaries_; ++a)
      if (touching(world.agent(a), me)) rew -= 5;
    for (int p = 0; p < 2; ++p) rew -= 2 * arena_bound(std::fabs(me.pos[p]));
    for (size_t f = 0; f < food_; ++f)
      if (touching(me, food(f))) rew += 2;
    double nearest = 0;
    for (size_t f = 0; f < food_; ++f) {
      const double d = distance(food(f).pos, me.pos);
      if (f == 0 || d < nearest) nearest = d;
    }
    rew -= 0.05 * nearest;
    return rew;
  }

  size_t observation_size(size_t agent) const override {
    const size_t n = good_ + adversaries_;
    const size_t other_good = good_ - (is_adversary(agent) ? 0 : 1);
    return 4 + 2 * world.num_landmarks() + 2 * (n - 1) + 2 * other_good + forests_ + (talks_to(agent) ? kDimC : 0);
  }

  void observation(size_t agent, double* out) const override {
    const size_t n = good_ + adversaries_;
    const Entity& me = world.agent(agent);
    const bool leader = agent == 0;
    ObsWriter w{out};
    w.put2(me.vel);
    w.put2(me.pos);
    for (size_t l = 0; l < world.num_landmarks(); ++l) w.rel(world.landmark(l).pos, me.pos);
    bool in_any = false;
    for (size_t f = 0; f < forests_; ++f) in_any = in_any || touching(me, forest(f));
    // other_pos, then (into vel_buf_) other_vel, per mpe2's visibility rule
    double* vel = vel_buf_;
    size_t n_vel = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i == agent) continue;
      const Entity& other = world.agent(i);
      bool visible = false, shared = false, other_in_any = false;
      for (size_t f = 0; f < forests_; ++f) {
        const bool mine = touching(me, forest(f));
        const bool theirs = touching(other, forest(f));
        other_in_any = other_in_any || theirs;
        if (mine && theirs && !shared) shared = true;
      }
      visible = shared || (!in_any && !other_in_any) || leader;
      if (visible) w.rel(other.pos, me.pos);
      else w.put2(kZero);
      if (!is_adversary(i)) {
        vel[2 * n_vel] = visible ? other.vel[0] : 0.0;
        vel[2 * n_vel + 1] = visible ? other.vel[1] : 0.0;
        ++n_vel;
      }
    }
    if (talks_to(agent)) {
      w.put_n(vel, 2 * n_vel);
      for (size_t f = 0; f < forests_; ++f) w.put(touching(me, forest(f)) ? 1.0 : -1.0);
      w.put_n(world.comm(0), kDimC);
    } else {
      for (size_t f = 0; f < forests_; ++f) w.put(touching(me, forest(f)) ? 1.0 : -1.0);
      w.put_n(vel, 2 * n_vel);
    }
  }

 private:
  static constexpr double kZero[2] = {0.0, 0.0};
  bool is_adversary(size_t i) const { return i < adversaries_; }
  // The agents whose observation ends with the leader's message: adversaries and the leader.
  bool talks_to(size_t i) const { return is_adversary(i) || i == 0; }
  Entity& food(size_t f) { return world.landmark(obstacles_ + f); }
  const Entity& food(size_t f) const { return world.landmark(obstacles_ + f); }
  Entity& forest(size_t f) { return world.landmark(obstacles_ + food_ + f); }
  const Entity& forest(size_t f) const { return world.landmark(obstacles_ + food_ + f); }

  size_t good_, adversaries_, obstacles_, food_, forests_;
  mutable double vel_buf_[2 * kMaxAgents] = {};
};

std::vector<ConfigField> fields() {
  return {{"num_good", int64_t{2}, "Number of good agents."},
          {"num_adversaries", int64_t{4}, "Number of adversaries (the first is their leader)."},
          {"num_obstacles", int64_t{1}, "Number of obstacles."},
          {"num_food", int64_t{2}, "Number of food landmarks."},
          {"num_forests", int64_t{2}, "Number of forests."}};
}
std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleWorldComm>(c); }

}  // namespace

ScenarioDef simple_world_comm_def() {
  return {.name = "simple_world_comm",
          .version = 3,
          .doc = "MPE simple_world_comm: a talking leader and its adversaries hunt good agents that eat food "
                 "and hide in forests (mpe2 simple_world_comm_v3).",
          .fields = fields,
          .make = make};
}

}  // namespace envhive::mpe
