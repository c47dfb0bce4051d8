// CliffWalking-v1 / CliffWalkingSlippery-v1: gymnasium.envs.toy_text.cliffwalking.CliffWalkingEnv,
// step for step. A 4 x 12 grid from (3, 0) to (3, 11) along a cliff: -1 a step, -100 and back to
// the start for a step into the cliff; with is_slippery the intended move and its two
// perpendicular slips have probability 1/3 each. info["prob"] is the sampled outcome's.
#pragma once

#include <algorithm>
#include <cstring>

#include "../../core/task.h"
#include "categorical.h"
#include "render/scenes.h"

namespace envhive::toy_text {

class CliffWalkingEnv final : public Env {
 public:
  static constexpr int kRows = 4, kCols = 12, kStates = kRows * kCols;
  static constexpr int64_t kStart = 3 * kCols;

  static std::vector<ConfigField> config(bool slippery) {
    return {{"is_slippery", slippery, "Move as intended or slip to either side, each with probability 1/3."}};
  }
  static Spaces spaces(const Config&, bool) {
    return {SpaceSpec::discrete(kStates),
            SpaceSpec::discrete(4),
            {InfoSpec{"prob", DType::kFloat64, {}}},
            {.height = kCliffHeight, .width = kCliffWidth, .fps = 4}};
  }
  CliffWalkingEnv(const Config& c, int /*env_id*/, bool) : slippery_(c.flag("is_slippery")) {}

  void reset() override {
    // initial_state_distrib is 1 at the start: categorical_sample still draws once.
    s_ = static_cast<int64_t>(
        categorical_sample(kStates, [](size_t i) { return i == kStart ? 1.0 : 0.0; }, rng()));
    prob_ = 1.0;
  }
  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    Outcomes out;
    if (slippery_) {
      for (int64_t move : {(a + 3) % 4, a, (a + 1) % 4}) out.add(outcome(move, 1.0 / 3));
    } else {
      out.add(outcome(a, 1.0 / 1));
    }
    const Outcome& o = out.sample(rng());
    s_ = o.state;
    prob_ = o.prob;
    return {o.reward, o.terminated};
  }
  void write_obs(void* dst) const override { std::memcpy(dst, &s_, sizeof(s_)); }
  void write_info(void* const* dst) const override { std::memcpy(dst[0], &prob_, sizeof(prob_)); }
  void render(uint8_t* rgb, RenderSlot& slot) override { draw_cliff_walking(rgb, s_, sprites(slot)); }

 private:
  // Gymnasium's _calculate_transition_prob for one move (0 up, 1 right, 2 down, 3 left).
  Outcome outcome(int64_t move, double prob) const {
    static constexpr int kDelta[4][2] = {{-1, 0}, {0, 1}, {1, 0}, {0, -1}};
    const int row = std::clamp(static_cast<int>(s_ / kCols) + kDelta[move][0], 0, kRows - 1);
    const int col = std::clamp(static_cast<int>(s_ % kCols) + kDelta[move][1], 0, kCols - 1);
    if (row == 3 && col >= 1 && col <= kCols - 2) return {prob, kStart, -100, false};  // the cliff
    return {prob, static_cast<int64_t>(row) * kCols + col, -1, row == kRows - 1 && col == kCols - 1};
  }

  bool slippery_;
  int64_t s_ = kStart;
  double prob_ = 1.0;
};

}  // namespace envhive::toy_text
