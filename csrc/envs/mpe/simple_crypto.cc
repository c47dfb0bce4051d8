// simple_crypto_v3 (mpe2 1.1.1 mpe2/simple_crypto): alice (speaker) sends the goal colour to bob
// with a private key both hold; eve (adversary) listens without the key. Nobody moves: all three
// only talk (4 channels). Rewards are squared errors of what bob and eve say against the goal.
#include <memory>

#include "scenario.h"

namespace envhive::mpe {
namespace {

constexpr size_t kDimC = 4;

class SimpleCrypto final : public Scenario {
 public:
  explicit SimpleCrypto(const Config&) {
    world.build(3, 2, kDimC);
    agent_names = {"eve_0", "bob_0", "alice_0"};
    for (size_t i = 0; i < 3; ++i) {
      world.agent(i).collide = false;
      world.agent(i).movable = false;
    }
    for (size_t i = 0; i < 2; ++i) {
      world.landmark(i).collide = false;
      world.landmark(i).movable = false;
    }
    // Landmark colours are dim_c one-hot codes (landmark i: channel i).
    for (size_t l = 0; l < 2; ++l)
      for (size_t k = 0; k < kDimC; ++k) code_[l][k] = (k == l) ? 0.0 + 1 : 0.0;
  }

  void reset_world(Pcg64& rng) override {
    for (size_t i = 0; i < 3; ++i) set_color(world.agent(i), i == 0 ? 0.75 : 0.25, 0.25, 0.25);
    for (size_t l = 0; l < 2; ++l) set_color(world.landmark(l), code_[l][0], code_[l][1], code_[l][2]);
    goal_ = static_cast<size_t>(rng.integers(0, 2));
    set_color(world.agent(1), code_[goal_][0], code_[goal_][1], code_[goal_][2]);  // bob wears the goal's code
    key_ = static_cast<size_t>(rng.integers(0, 2));
    world.clear_motion();
    for (size_t i = 0; i < 3; ++i) draw_position(world.agent(i), rng, -1.0, 1.0);
    for (size_t i = 0; i < 2; ++i) draw_position(world.landmark(i), rng, -1.0, 1.0);
  }

  double reward(size_t agent) override {
    if (agent == 0) {
      double rew = 0;
      if (speaks(0)) rew -= error(0);
      return rew;
    }
    double good_rew = 0, adv_rew = 0;
    if (speaks(1)) good_rew -= error(1);
    if (speaks(0)) adv_rew += error(0);
    return adv_rew + good_rew;
  }

  size_t observation_size(size_t agent) const override { return agent == 0 ? kDimC : 2 * kDimC; }
  void observation(size_t agent, double* out) const override {
    ObsWriter w{out};
    if (agent == 2) {  // alice: the goal colour and the key
      w.put_n(code_[goal_], kDimC);
      w.put_n(code_[key_], kDimC);
    } else if (agent == 1) {  // bob: the key and what alice says
      w.put_n(code_[key_], kDimC);
      w.put_n(world.comm(2), kDimC);
    } else {  // eve: what alice says
      w.put_n(world.comm(2), kDimC);
    }
  }

 private:
  // (a.state.c == np.zeros(dim_c)).all() is false
  bool speaks(size_t a) const {
    const double* c = world.comm(a);
    for (size_t k = 0; k < kDimC; ++k)
      if (c[k] != 0.0) return true;
    return false;
  }
  // np.sum(np.square(a.state.c - goal.color)): numpy's sum of 4 (sequential below 8 elements).
  double error(size_t a) const {
    const double* c = world.comm(a);
    double s = 0;
    for (size_t k = 0; k < kDimC; ++k) {
      const double d = c[k] - code_[goal_][k];
      s += d * d;
    }
    return s;
  }

  double code_[2][kDimC] = {};
  size_t goal_ = 0, key_ = 0;
};

std::unique_ptr<Scenario> make(const Config& c) { return std::make_unique<SimpleCrypto>(c); }

}  // namespace

ScenarioDef simple_crypto_def() {
  return {.name = "simple_crypto",
          .version = 3,
          .doc = "MPE simple_crypto: alice and bob share a key to hide the goal colour from eve (mpe2 simple_crypto_v3).",
          .fields = nullptr,
          .make = make};
}

}  // namespace envhive::mpe
