// One MPE scenario (mpe2's BaseScenario): builds its world from the task's kwargs, draws the
// initial state (reset_world, from the env's numpy Generator), and computes observations and
// rewards. The env around it (mpe_env.h) decodes actions, steps the world and keeps the clock.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../../core/family_data.h"
#include "../../core/rng.h"
#include "../../core/spec.h"
#include "world.h"

namespace envhive::mpe {

class Scenario {
 public:
  virtual ~Scenario() = default;

  // reset_world(world, np_random): the draws in mpe2's order.
  virtual void reset_world(Pcg64& rng) = 0;
  // float(scenario.reward(agent, world)).
  virtual double reward(size_t agent) = 0;
  // scenario.global_reward(world) (used where the task has local_ratio).
  virtual double global_reward() { return 0.0; }
  // scenario.is_terminal(world).
  virtual bool is_terminal() { return false; }
  // len(scenario.observation(agent, world)), for the spaces.
  virtual size_t observation_size(size_t agent) const = 0;
  // scenario.observation(agent, world): the float64 values (the env casts them to float32).
  virtual void observation(size_t agent, double* out) const = 0;

  World world;
  std::vector<std::string> agent_names;  // mpe2's agent.name, in world.agents order
};

// The kwargs of one scenario beyond the common ones, and how to build it from a resolved config.
struct ScenarioDef {
  std::string name;  // "simple_spread": the task id is name + "_v" + version
  int version = 3;
  std::string doc;
  std::vector<ConfigField> (*fields)() = nullptr;
  std::unique_ptr<Scenario> (*make)(const Config&) = nullptr;
  bool local_ratio = false;      // the task has local_ratio (default 0.5)
  bool terminate_option = false;  // the task has terminate_on_success
  bool curriculum = false;        // the task has curriculum (mpe2 1.1.1: stage 0 throughout)
  const FamilyData* data = nullptr;  // the family's data (its resolver draws the frames' text)
};

inline constexpr double kZero2[16] = {};  // zero padding (a slot of up to 16 values)

// Appends concatenation parts to an observation: the cursor of a float64 buffer.
struct ObsWriter {
  double* out;
  void put(double v) { *out++ = v; }
  void put2(const double* v) {
    *out++ = v[0];
    *out++ = v[1];
  }
  // b - a for two positions (mpe2: entity.state.p_pos - agent.state.p_pos)
  void rel(const double* b, const double* a) {
    *out++ = b[0] - a[0];
    *out++ = b[1] - a[1];
  }
  void put_n(const double* v, size_t n) {
    for (size_t i = 0; i < n; ++i) *out++ = v[i];
  }
};

inline void set_color(Entity& e, double r, double g, double b) {
  e.color[0] = r;
  e.color[1] = g;
  e.color[2] = b;
}
// entity.state.p_pos = np_random.uniform(low, high, dim_p)
inline void draw_position(Entity& e, Pcg64& rng, double low, double high) {
  e.pos[0] = rng.uniform(low, high);
  e.pos[1] = rng.uniform(low, high);
}

// The largest number of agents (one observation leaf each) and of entities a task accepts: the
// bound every count kwarg is checked against before anything is allocated.
inline constexpr int64_t kMaxAgents = 64;
inline constexpr int64_t kMaxLandmarks = 1024;

// The registered scenarios, in the order the family lists them.
std::vector<ScenarioDef> scenario_defs();

ScenarioDef simple_spread_def();
ScenarioDef simple_adversary_def();
ScenarioDef simple_tag_def();
ScenarioDef simple_def();
ScenarioDef simple_push_def();
ScenarioDef simple_speaker_listener_def();
ScenarioDef simple_reference_def();
ScenarioDef simple_crypto_def();
ScenarioDef simple_world_comm_def();

}  // namespace envhive::mpe
