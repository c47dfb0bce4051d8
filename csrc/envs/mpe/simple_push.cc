// simple_push_v3 (mpe2 1.1.1 mpe2/simple_push): one good agent and one adversary; the good agent
// knows which of two landmarks is the goal and is rewarded for reaching it, the adversary for
// keeping it away (pushing it) while staying close to the goal itself.
#include <memory>

#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimplePush final : public Scenario {
 public:
  explicit SimplePush(const Config&) {
    world.build(2, 2, 2);
    agent_names = {"adversary_0", "agent_0"};
    for (size_t i = 0; i < 2; ++i) {
      world.agent(i).collide = true;
      world.silent[i] = 1;
      world.landmark(i).collide = false;
      world.landmark(i).movable = false;
    }
  }

  void reset_world(Pcg64& rng) override {
    for (size_t i = 0; i < 2; ++i) {
      Entity& l = world.landmark(i);
      set_color(l, 0.1, 0.1, 0.1);
      l.color[i + 1] += 0.8;
    }
    goal_ = static_cast<size_t>(rng.integers(0, 2));
    set_color(world.agent(0), 0.75, 0.25, 0.25);
    set_color(world.agent(1), 0.25, 0.25, 0.25);
    world.agent(1).color[goal_ + 1] += 0.5;
    world.clear_motion();
    for (size_t i = 0; i < 2; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < 2; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  double reward(size_t agent) override {
    const double* goal = world.landmark(goal_).pos;
    if (agent == 1) return -distance(world.agent(1).pos, goal);
    const double pos_rew = distance(world.agent(1).pos, goal);  // min over the one good agent
    const double neg_rew = distance(goal, world.agent(0).pos);
    return pos_rew - neg_rew;
  }

  size_t observation_size(size_t agent) const override { return agent == 0 ? 8 : 19; }
  void observation(size_t agent, double* out) const override {
    const Entity& me = world.agent(agent);
    const Entity& other = world.agent(1 - agent);
    ObsWriter w{out};
    w.put2(me.vel);
    if (agent == 0) {
      for (size_t l = 0; l < 2; ++l) w.rel(world.landmark(l).pos, me.pos);
      w.rel(other.pos, me.pos);
      return;
    }
    w.rel(world.landmark(goal_).pos, me.pos);
    w.put_n(me.color, 3);
    for (size_t l = 0; l < 2; ++l) w.rel(world.landmark(l).pos, me.pos);
    for (size_t l = 0; l < 2; ++l) w.put_n(world.landmark(l).color, 3);
    w.rel(other.pos, me.pos);
  }

 private:
  size_t goal_ = 0;
};

std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimplePush>(c); }

}  // namespace

ScenarioDef simple_push_def() {
  return {.name = "simple_push",
          .version = 3,
          .doc = "MPE simple_push: an adversary pushes a good agent away from the goal landmark (mpe2 simple_push_v3).",
          .fields = nullptr,
          .make = make};
}

}  // namespace envhive::mpe
