// simple_v3 (mpe2 1.1.1 mpe2/simple): one agent learns to reach one landmark; reward minus the
// squared distance.
#include <memory>

#include "scenario.h"

namespace envhive::mpe {
namespace {

class Simple final : public Scenario {
 public:
  explicit Simple(const Config&) {
    world.build(1, 1, 0);
    agent_names = {"agent_0"};
    world.agent(0).collide = false;
    world.silent[0] = 1;
    world.landmark(0).collide = false;
    world.landmark(0).movable = false;
  }

  void reset_world(Pcg64& rng) override {
    set_color(world.agent(0), 0.25, 0.25, 0.25);
    set_color(world.landmark(0), 0.75, 0.25, 0.25);
    world.clear_motion();
    draw_position(world.agent(0), rng, -1.0, 1.0);
    draw_position(world.landmark(0), rng, -1.0, 1.0);
  }

  double reward(size_t) override { return -distance_squared(world.agent(0).pos, world.landmark(0).pos); }

  size_t observation_size(size_t) const override { return 4; }
  void observation(size_t, double* out) const override {
    ObsWriter w{out};
    w.put2(world.agent(0).vel);
    w.rel(world.landmark(0).pos, world.agent(0).pos);
  }
};

std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<Simple>(c); }

}  // namespace

ScenarioDef simple_def() {
  return {.name = "simple",
          .version = 3,
          .doc = "MPE simple: one agent moves to one landmark (mpe2 simple_v3).",
          .fields = nullptr,
          .make = make};
}

}  // namespace envhive::mpe
