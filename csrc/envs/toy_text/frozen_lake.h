// FrozenLake-v1 / FrozenLake8x8-v1: gymnasium.envs.toy_text.frozen_lake.FrozenLakeEnv, step for step.
// The map comes from `desc` (rows of S, F, H, G; Gymnasium's list of strings, joined by newlines
// here) or else `map_name`; with neither (map_name=None, desc=None) it is Gymnasium's
// generate_random_map(): a random 8x8 map, drawn once per env from a generator seeded with the
// env's first seed (Gymnasium draws it from fresh entropy, seed=None, when the env is made: an
// unseeded pool does that too). Each step samples Gymnasium's P[s][a] (the intended move, or with
// is_slippery the move and its two perpendicular slips) with one random() draw; info["prob"] is
// the sampled outcome's probability.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "../../core/task.h"
#include "categorical.h"
#include "render/scenes.h"

namespace envhive::toy_text {

// A parsed, checked map: nrow rows of ncol tiles.
struct Lake {
  int nrow = 0, ncol = 0;
  std::string tiles;  // row by row
  char at(int row, int col) const { return tiles[static_cast<size_t>(row * ncol + col)]; }
};

// Throws std::invalid_argument naming the problem: rows of unequal length, a tile other than
// S, F, H, G, no start tile, an unknown map_name. Neither desc nor map_name: the random map's size
// with no tiles yet (random_map draws them).
Lake parse_lake(const std::string& desc, const std::string& map_name);
bool is_random_map(const std::string& desc, const std::string& map_name);

// gymnasium's generate_random_map(size, p, seed) with its generator `rng` (seeding.np_random(seed)):
// Generator.choice(["F", "H"], (size, size), p=[p, 1 - p]), S top left, G bottom right, drawn again
// until a path of non-holes joins them (is_valid).
std::string random_lake_tiles(int size, double p, Pcg64& rng);

class FrozenLakeEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const std::string& map_name) {
    return {
        {"desc", std::string(), "The map: rows of S (start), F (frozen), H (hole), G (goal), e.g. "
                                "['SFFF', 'FHFH', 'FFFH', 'HFFG'] (joined by newlines); empty: map_name."},
        {"map_name", map_name,
         "A predefined map when desc is empty: '4x4' or '8x8'; empty (None) with desc empty: a random 8x8 map "
         "(Gymnasium's generate_random_map), drawn once per env from its first seed."},
        {"is_slippery", true, "Move in the intended direction with probability success_rate, else slip sideways."},
        {"success_rate", 1.0 / 3.0, "Probability of the intended move when is_slippery."},
        {"reward_schedule", std::vector<double>{1, 0, 0}, "Rewards for reaching (goal, hole, frozen or start)."},
    };
  }
  static Spaces spaces(const Config& c, const std::string&) {
    const Lake lake = parse_lake(c.text("desc"), c.text("map_name"));
    if (c.reals("reward_schedule").size() != 3)
      throw std::invalid_argument("reward_schedule must hold 3 rewards (goal, hole, frozen), got " +
                                  std::to_string(c.reals("reward_schedule").size()));
    c.real_in("success_rate", 0.0, 1.0, " (a probability)");
    const FrozenLakeSize size = frozen_lake_size(lake.nrow, lake.ncol);
    return {SpaceSpec::discrete(lake.nrow * lake.ncol),
            SpaceSpec::discrete(4),
            {InfoSpec{"prob", DType::kFloat64, {}}},
            {.height = size.height, .width = size.width, .fps = 4}};
  }
  FrozenLakeEnv(const Config& c, int /*env_id*/, const std::string&)
      : lake_(parse_lake(c.text("desc"), c.text("map_name"))),
        slippery_(c.flag("is_slippery")),
        success_rate_(c.real_in("success_rate", 0.0, 1.0, " (a probability)")),
        fail_rate_((1.0 - success_rate_) / 2.0),
        rewards_(c.reals("reward_schedule")) {
    if (!lake_.tiles.empty()) start_states();
  }

  // The first seed draws a random map (Gymnasium draws it when the env is made); later seeds
  // only seed the env's generator, as env.reset(seed=...) does.
  void seed(uint64_t s) override {
    if (lake_.tiles.empty()) {
      Pcg64 map_rng(s);
      draw_map(map_rng);
    }
    Env::seed(s);
  }
  void seed_from_os() override {
    if (lake_.tiles.empty()) {
      Pcg64 map_rng;
      map_rng.seed_from_os();
      draw_map(map_rng);
    }
    Env::seed_from_os();
  }

  void reset() override {
    s_ = static_cast<int64_t>(categorical_sample(initial_.size(), [this](size_t i) { return initial_[i]; }, rng()));
    prob_ = 1.0;
  }

  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    const Outcome o = transitions(s_, a).sample(rng());  // a copy: the Outcomes are a temporary
    s_ = o.state;
    prob_ = o.prob;
    return {o.reward, o.terminated};
  }

  void write_obs(void* dst) const override { std::memcpy(dst, &s_, sizeof(s_)); }
  void write_info(void* const* dst) const override { std::memcpy(dst[0], &prob_, sizeof(prob_)); }
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  enum Move { kLeft = 0, kDown = 1, kRight = 2, kUp = 3 };

  // Gymnasium's P[s][a].
  Outcomes transitions(int64_t s, int64_t a) const {
    Outcomes out;
    const int row = static_cast<int>(s / lake_.ncol), col = static_cast<int>(s % lake_.ncol);
    const char letter = lake_.at(row, col);
    if (letter == 'G' || letter == 'H') {
      out.add({1.0, s, 0.0, true});
      return out;
    }
    auto outcome = [&](int64_t move, double prob) {
      int r = row, c = col;
      if (move == kLeft) c = std::max(c - 1, 0);
      if (move == kDown) r = std::min(r + 1, lake_.nrow - 1);
      if (move == kRight) c = std::min(c + 1, lake_.ncol - 1);
      if (move == kUp) r = std::max(r - 1, 0);
      const char next = lake_.at(r, c);
      const double reward = rewards_[next == 'G' ? 0 : next == 'H' ? 1 : 2];
      return Outcome{prob, static_cast<int64_t>(r) * lake_.ncol + c, reward, next == 'G' || next == 'H'};
    };
    if (slippery_) {
      for (int64_t b : {(a + 3) % 4, a, (a + 1) % 4}) out.add(outcome(b, b == a ? success_rate_ : fail_rate_));
    } else {
      out.add(outcome(a, 1.0));
    }
    return out;
  }

  void draw_map(Pcg64& rng) {
    lake_.tiles = random_lake_tiles(lake_.nrow, 0.8, rng);  // generate_random_map()'s defaults: 8, p=0.8
    start_states();
  }
  // initial_state_distrib: 1 on every start tile, normalised.
  void start_states() {
    double starts = 0;
    for (char t : lake_.tiles) starts += t == 'S';
    initial_.clear();
    for (char t : lake_.tiles) initial_.push_back(t == 'S' ? 1.0 / starts : 0.0);
  }

  Lake lake_;
  std::vector<uint8_t> surface_;  // the last frame: Gymnasium's window surface, drawn over by the next
  bool slippery_;
  double success_rate_, fail_rate_;
  std::vector<double> rewards_;
  std::vector<double> initial_;
  int64_t s_ = 0;
  double prob_ = 1.0;
};

}  // namespace envhive::toy_text
