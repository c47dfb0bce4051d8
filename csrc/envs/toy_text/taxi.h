// Taxi-v4: gymnasium.envs.toy_text.taxi.TaxiEnv (Gymnasium 1.4; EnvPool's Taxi-v3 is its dry,
// non-fickle case), step for step. A state encodes (taxi row, taxi column, passenger location
// 0-3 or 4 = in the taxi, destination 0-3). P[s][a] is Gymnasium's: one outcome in dry weather,
// and with is_rainy a move that can go ahead also drifts left or right of the heading. A fickle
// passenger changes destination (one draw) on the first move after being picked up, with
// probability fickle_probability decided (one draw) at reset. Infos: `prob` and `action_mask`.
#pragma once

#include <cstring>
#include <vector>

#include "../../core/task.h"
#include "categorical.h"
#include "render/scenes.h"

namespace envhive::toy_text {

class TaxiEnv final : public Env {
 public:
  static constexpr int kStates = 500, kActions = 6, kRows = 5, kCols = 5;

  static std::vector<ConfigField> config() {
    return {
        {"is_rainy", false, "Moves drift left or right of the heading with probability (1 - rainy_probability) / 2 each."},
        {"fickle_passenger", false, "The passenger may change destination on the taxi's first move after the pickup."},
        {"rainy_probability", 0.8, "Probability of the intended move when is_rainy."},
        {"fickle_probability", 0.3, "Probability, drawn at reset, that the passenger is fickle this episode."},
    };
  }
  static Spaces spaces(const Config& c) {
    c.real_in("rainy_probability", 0.0, 1.0, " (a probability)");
    c.real_in("fickle_probability", 0.0, 1.0, " (a probability)");
    return {SpaceSpec::discrete(kStates),
            SpaceSpec::discrete(kActions),
            {InfoSpec{"prob", DType::kFloat64, {}}, InfoSpec{"action_mask", DType::kInt8, {kActions}}},
            {.height = kTaxiHeight, .width = kTaxiWidth, .fps = 4}};
  }
  TaxiEnv(const Config& c, int /*env_id*/)
      : rainy_(c.flag("is_rainy")),
        fickle_passenger_(c.flag("fickle_passenger")),
        rainy_probability_(c.real_in("rainy_probability", 0.0, 1.0, " (a probability)")),
        lateral_probability_((1.0 - rainy_probability_) / 2.0),
        fickle_probability_(c.real_in("fickle_probability", 0.0, 1.0, " (a probability)")) {}

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override { std::memcpy(dst, &s_, sizeof(s_)); }
  void write_info(void* const* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  struct Decoded {
    int row, col, pass, dest;
  };
  static int64_t encode(int row, int col, int pass, int dest) { return ((row * 5 + col) * 5 + pass) * 4 + dest; }
  static Decoded decode(int64_t s) {
    const int i = static_cast<int>(s);
    return {i / 100, (i / 20) % 5, (i / 4) % 5, i % 4};
  }
  Outcomes transitions(int64_t s, int64_t a) const;

  bool rainy_, fickle_passenger_;
  double rainy_probability_, lateral_probability_, fickle_probability_;
  int64_t s_ = 0;
  double prob_ = 1.0;
  bool fickle_step_ = false;
  int64_t last_action_ = -1;  // -1: None (after reset)
  int orientation_ = 0;       // the taxi's heading as Gymnasium's renderer last drew it
};

}  // namespace envhive::toy_text
