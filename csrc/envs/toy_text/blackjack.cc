#include "blackjack.h"

#include <algorithm>

namespace envhive::toy_text {

namespace {
constexpr int kDeck[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10};
}  // namespace

int BlackjackEnv::Hand::sum() const {
  int s = 0;
  for (int i = 0; i < n; ++i) s += cards[static_cast<size_t>(i)];
  return s;
}

bool BlackjackEnv::Hand::usable_ace() const {
  return std::find(cards.begin(), cards.begin() + n, 1) != cards.begin() + n && sum() + 10 <= 21;
}

bool BlackjackEnv::Hand::natural() const {
  return n == 2 && std::min(cards[0], cards[1]) == 1 && std::max(cards[0], cards[1]) == 10;
}

// draw_card: int(np_random.choice(deck)), i.e. deck[integers(0, 13)].
int BlackjackEnv::draw_card() { return kDeck[rng().integers(0, 13)]; }

void BlackjackEnv::reset() {
  dealer_.n = player_.n = 0;
  for (Hand* hand : {&dealer_, &player_})
    for (int k = 0; k < 2; ++k) hand->cards[static_cast<size_t>(hand->n++)] = draw_card();
  static constexpr const char* kSuits[4] = {"C", "D", "H", "S"};
  static constexpr const char* kFaces[3] = {"J", "Q", "K"};
  const std::string suit = kSuits[rng().integers(0, 4)];
  const int shown = dealer_.cards[0];
  std::string value = shown == 1 ? "A" : shown == 10 ? kFaces[rng().integers(0, 3)] : std::to_string(shown);
  shown_card_ = value + suit;
}

StepResult BlackjackEnv::step(const void* action) {
  int64_t a;
  std::memcpy(&a, action, sizeof(a));
  if (a) {  // hit
    player_.cards[static_cast<size_t>(player_.n++)] = draw_card();
    return player_.bust() ? StepResult{-1.0, true} : StepResult{0.0, false};
  }
  // stick: the dealer draws to 17 or more, then the scores compare
  while (dealer_.total() < 17) dealer_.cards[static_cast<size_t>(dealer_.n++)] = draw_card();
  const int p = player_.score(), d = dealer_.score();
  double reward = static_cast<double>(p > d) - static_cast<double>(p < d);
  if (sab_ && player_.natural() && !dealer_.natural())
    reward = 1.0;
  else if (!sab_ && natural_ && player_.natural() && reward == 1.0)
    reward = 1.5;
  return {reward, true};
}

void BlackjackEnv::write_obs_leaves(void* const* dst) const {
  const int64_t leaves[3] = {player_.total(), dealer_.cards[0], player_.usable_ace() ? 1 : 0};
  for (int i = 0; i < 3; ++i) std::memcpy(dst[i], &leaves[i], sizeof(int64_t));
}

void BlackjackEnv::render(uint8_t* rgb, RenderSlot& slot) {
  draw_blackjack(rgb, player_.total(), dealer_.cards[0], player_.usable_ace(), shown_card_, sprites(slot));
}

}  // namespace envhive::toy_text
