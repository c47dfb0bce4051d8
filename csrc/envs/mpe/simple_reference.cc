// simple_reference_v3 (mpe2 1.1.1 mpe2/simple_reference): two agents each know the other's goal
// landmark and must tell it (10 channels) while moving to their own; local_ratio blends each
// agent's reward with the pair's mean.
#include <memory>

#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimpleReference final : public Scenario {
 public:
  explicit SimpleReference(const Config&) {
    world.build(2, 3, 10);
    agent_names = {"agent_0", "agent_1"};
    for (size_t i = 0; i < 2; ++i) world.agent(i).collide = false;
    for (size_t i = 0; i < 3; ++i) {
      world.landmark(i).collide = false;
      world.landmark(i).movable = false;
    }
  }

  void reset_world(Pcg64& rng) override {
    goal_[0] = static_cast<size_t>(rng.integers(0, 3));
    goal_[1] = static_cast<size_t>(rng.integers(0, 3));
    for (size_t i = 0; i < 2; ++i) set_color(world.agent(i), 0.25, 0.25, 0.25);
    set_color(world.landmark(0), 0.75, 0.25, 0.25);
    set_color(world.landmark(1), 0.25, 0.75, 0.25);
    set_color(world.landmark(2), 0.25, 0.25, 0.75);
    // agents[i].goal_a (the other agent) takes the colour of agents[i].goal_b
    for (size_t i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) world.agent(1 - i).color[k] = world.landmark(goal_[i]).color[k];
    world.clear_motion();
    for (size_t i = 0; i < 2; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < 3; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  // -dist(agent.goal_a, agent.goal_b): the other agent's distance to this agent's goal.
  double reward(size_t agent) override {
    return -distance(world.agent(1 - agent).pos, world.landmark(goal_[agent]).pos);
  }
  double global_reward() override { return (0.0 + reward(0) + reward(1)) / 2; }

  size_t observation_size(size_t) const override { return 21; }
  void observation(size_t agent, double* out) const override {
    const Entity& me = world.agent(agent);
    ObsWriter w{out};
    w.put2(me.vel);
    for (size_t l = 0; l < 3; ++l) w.rel(world.landmark(l).pos, me.pos);
    w.put_n(world.landmark(goal_[agent]).color, 3);
    w.put_n(world.comm(1 - agent), 10);
  }

 private:
  size_t goal_[2] = {0, 0};
};

std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleReference>(c); }

}  // namespace

ScenarioDef simple_reference_def() {
  return {.name = "simple_reference",
          .version = 3,
          .doc = "MPE simple_reference: two agents tell each other their goal landmarks (mpe2 simple_reference_v3).",
          .fields = nullptr,
          .make = make,
          .local_ratio = true};
}

}  // namespace envhive::mpe
