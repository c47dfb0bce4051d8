// Blackjack-v1: gymnasium.envs.toy_text.blackjack.BlackjackEnv, step for step. Cards come from an
// infinite deck (np_random.choice of 13 values); the observation is Gymnasium's Tuple (player sum,
// dealer's showing card, usable ace). reset() also draws the shown card's suit and, for a ten, its
// face (J, Q or K) as Gymnasium does, so the random stream stays in step; the renderer draws them.
#pragma once

#include <array>
#include <cstring>
#include <string>

#include "../../core/task.h"
#include "render/scenes.h"

namespace envhive::toy_text {

class BlackjackEnv final : public Env {
 public:
  static std::vector<ConfigField> config() {
    return {
        {"natural", false, "Pay 1.5 for winning with a natural blackjack (an ace and a ten); ignored when sab."},
        {"sab", true, "Sutton and Barto's rules: a natural beats a dealer without one (+1), two naturals draw."},
    };
  }
  static Spaces spaces(const Config&) {
    return {SpaceSpec::tuple({SpaceSpec::discrete(32), SpaceSpec::discrete(11), SpaceSpec::discrete(2)}),
            SpaceSpec::discrete(2),
            {},
            {.height = kBlackjackHeight, .width = kBlackjackWidth, .fps = 4}};
  }
  BlackjackEnv(const Config& c, int /*env_id*/) : natural_(c.flag("natural")), sab_(c.flag("sab")) {}

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs_leaves(void* const* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  // A hand of cards (values 1-10, ace = 1); at most 21 cards fit under a bust.
  struct Hand {
    std::array<int, 24> cards{};
    int n = 0;
    int sum() const;
    bool usable_ace() const;  // an ace that can count 11 without busting
    int total() const { return usable_ace() ? sum() + 10 : sum(); }
    bool bust() const { return total() > 21; }
    int score() const { return bust() ? 0 : total(); }
    bool natural() const;  // exactly an ace and a ten
  };
  int draw_card();

  bool natural_, sab_;
  Hand player_, dealer_;
  std::string shown_card_;  // the dealer's face-up card as the renderer names it: "KH", "7C", ...
};

}  // namespace envhive::toy_text
