// simple_speaker_listener_v4 (mpe2 1.1.1 mpe2/simple_speaker_listener): a static speaker sees the
// goal landmark's colour and talks (3 channels); a silent listener hears it and moves to the goal.
// Both get minus the listener's squared distance to the goal.
#include <memory>

#include "scenario.h"

namespace envhive::mpe {
namespace {

class SimpleSpeakerListener final : public Scenario {
 public:
  explicit SimpleSpeakerListener(const Config&) {
    world.build(2, 3, 3);
    agent_names = {"speaker_0", "listener_0"};
    for (size_t i = 0; i < 2; ++i) {
      world.agent(i).collide = false;
      world.agent(i).size = 0.075;
    }
    world.agent(0).movable = false;
    world.silent[1] = 1;
    for (size_t i = 0; i < 3; ++i) {
      Entity& l = world.landmark(i);
      l.collide = false;
      l.movable = false;
      l.size = 0.04;
    }
  }

  void reset_world(Pcg64& rng) override {
    goal_ = static_cast<size_t>(rng.integers(0, 3));
    for (size_t i = 0; i < 2; ++i) set_color(world.agent(i), 0.25, 0.25, 0.25);
    set_color(world.landmark(0), 0.65, 0.15, 0.15);
    set_color(world.landmark(1), 0.15, 0.65, 0.15);
    set_color(world.landmark(2), 0.15, 0.15, 0.65);
    for (int k = 0; k < 3; ++k) world.agent(1).color[k] = world.landmark(goal_).color[k] + 0.45;
    world.clear_motion();
    for (size_t i = 0; i < 2; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < 3; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  double reward(size_t) override { return -distance_squared(world.agent(1).pos, world.landmark(goal_).pos); }

  size_t observation_size(size_t agent) const override { return agent == 0 ? 3 : 11; }
  void observation(size_t agent, double* out) const override {
    ObsWriter w{out};
    if (agent == 0) {
      w.put_n(world.landmark(goal_).color, 3);
      return;
    }
    const Entity& me = world.agent(1);
    w.put2(me.vel);
    for (size_t l = 0; l < 3; ++l) w.rel(world.landmark(l).pos, me.pos);
    w.put_n(world.comm(0), 3);
  }

 private:
  size_t goal_ = 0;
};

std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleSpeakerListener>(c); }

}  // namespace

ScenarioDef simple_speaker_listener_def() {
  return {.name = "simple_speaker_listener",
          .version = 4,
          .doc = "MPE simple_speaker_listener: a speaker guides a listener to the goal landmark "
                 "(mpe2 simple_speaker_listener_v4).",
          .fields = nullptr,
          .make = make};
}

}  // namespace envhive::mpe
