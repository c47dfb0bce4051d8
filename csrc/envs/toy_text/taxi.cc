#include "taxi.h"

#include <algorithm>
#include <cstring>

namespace envhive::toy_text {

namespace {

// Gymnasium's MAP: ':' is an open passage between two columns, '|' a wall.
constexpr const char* kMap[7] = {
    "+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |", "| | : | : |", "|Y| : |B: |", "+---------+",
};
constexpr int kLocs[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};
constexpr int kMaxRow = TaxiEnv::kRows - 1, kMaxCol = TaxiEnv::kCols - 1;

bool open(int map_row, int map_col) { return kMap[map_row][map_col] == ':'; }

// The index of the pad at (row, col), or -1.
int pad_at(int row, int col) {
  for (int i = 0; i < 4; ++i)
    if (kLocs[i][0] == row && kLocs[i][1] == col) return i;
  return -1;
}

// Gymnasium's _pickup: (new passenger location, reward).
std::pair<int, double> pickup(int row, int col, int pass, double reward) {
  if (pass < 4 && pad_at(row, col) == pass) return {4, reward};
  return {pass, -10};
}

struct Dropoff {
  int pass;
  double reward;
  bool terminated;
};
// Gymnasium's _dropoff.
Dropoff dropoff(int row, int col, int pass, int dest, double reward) {
  if (pad_at(row, col) == dest && pass == 4) return {dest, 20, true};
  if (pad_at(row, col) >= 0 && pass == 4) return {pad_at(row, col), reward, false};
  return {pass, -10, false};
}

// Gymnasium's _calc_new_position for a rainy drift (dr, dc).
std::pair<int, int> drift(int row, int col, int dr, int dc) {
  const int r = std::max(0, std::min(row + dr, kMaxRow));
  const int c = std::max(0, std::min(col + dc, kMaxCol));
  if (dc == 1 && !open(1 + r, 2 * c)) return {row, col};       // east wall
  if (dc == -1 && !open(1 + r, 2 * c + 2)) return {row, col};  // west wall
  return {r, c};
}

}  // namespace

Outcomes TaxiEnv::transitions(int64_t s, int64_t action) const {
  const auto [row, col, pass, dest] = decode(s);
  Outcomes out;
  int new_row = row, new_col = col, new_pass = pass;
  double reward = -1;  // no pickup or dropoff
  bool terminated = false;
  if (!rainy_) {
    if (action == 0) new_row = std::min(row + 1, kMaxRow);
    else if (action == 1) new_row = std::max(row - 1, 0);
    if (action == 2 && open(1 + row, 2 * col + 2)) {
      new_col = std::min(col + 1, kMaxCol);
    } else if (action == 3 && open(1 + row, 2 * col)) {
      new_col = std::max(col - 1, 0);
    } else if (action == 4) {
      std::tie(new_pass, reward) = pickup(row, col, new_pass, reward);
    } else if (action == 5) {
      const Dropoff d = dropoff(row, col, new_pass, dest, reward);
      new_pass = d.pass;
      reward = d.reward;
      terminated = d.terminated;
    }
    out.add({1.0, encode(new_row, new_col, new_pass, dest), reward, terminated});
    return out;
  }
  // (forward, left, right) of each heading: south, north, east, west.
  static constexpr int kMoves[4][3][2] = {
      {{1, 0}, {0, 1}, {0, -1}}, {{-1, 0}, {0, -1}, {0, 1}}, {{0, 1}, {-1, 0}, {1, 0}}, {{0, -1}, {1, 0}, {-1, 0}}};
  std::pair<int, int> left{row, col}, right{row, col};
  // A move that cannot go ahead (a wall, the edge) does not drift either.
  if ((action == 0 && row < kMaxRow) || (action == 1 && row > 0) || (action == 2 && open(1 + row, 2 * col + 2)) ||
      (action == 3 && open(1 + row, 2 * col))) {
    const auto& m = kMoves[action];
    new_row = std::max(0, std::min(row + m[0][0], kMaxRow));
    new_col = std::max(0, std::min(col + m[0][1], kMaxCol));
    left = drift(row, col, m[1][0], m[1][1]);
    right = drift(row, col, m[2][0], m[2][1]);
  } else if (action == 4) {
    std::tie(new_pass, reward) = pickup(row, col, new_pass, reward);
  } else if (action == 5) {
    const Dropoff d = dropoff(row, col, new_pass, dest, reward);
    new_pass = d.pass;
    reward = d.reward;
    terminated = d.terminated;
  }
  const int64_t intended = encode(new_row, new_col, new_pass, dest);
  if (action <= 3) {
    out.add({rainy_probability_, intended, -1, terminated});
    out.add({lateral_probability_, encode(left.first, left.second, new_pass, dest), -1, terminated});
    out.add({lateral_probability_, encode(right.first, right.second, new_pass, dest), -1, terminated});
  } else {
    out.add({1.0, intended, reward, terminated});
  }
  return out;
}

void TaxiEnv::reset() {
  // initial_state_distrib: 1 for each state with the passenger on a pad other than the
  // destination (300 of them), normalised; sampled over all 500 states.
  static const std::vector<double> initial = [] {
    std::vector<double> d(kStates, 0.0);
    for (int row = 0; row < kRows; ++row)
      for (int col = 0; col < kCols; ++col)
        for (int pass = 0; pass < 4; ++pass)
          for (int dest = 0; dest < 4; ++dest)
            if (pass != dest) d[static_cast<size_t>(encode(row, col, pass, dest))] += 1;
    double total = 0;
    for (double v : d) total += v;
    for (double& v : d) v /= total;
    return d;
  }();
  s_ = static_cast<int64_t>(categorical_sample(initial.size(), [](size_t i) { return initial[i]; }, rng()));
  prob_ = 1.0;
  last_action_ = -1;
  fickle_step_ = fickle_passenger_ && rng().next_double() < fickle_probability_;
  orientation_ = 0;
}

StepResult TaxiEnv::step(const void* action) {
  int64_t a;
  std::memcpy(&a, action, sizeof(a));
  const Outcome o = transitions(s_, a).sample(rng());
  last_action_ = a;
  const Decoded before = decode(s_);
  const Decoded after = decode(o.state);
  int64_t s = o.state;
  // The passenger, in the taxi since before this step, changes their mind as it first moves.
  if (fickle_passenger_ && fickle_step_ && before.pass == 4 && (after.row != before.row || after.col != before.col)) {
    fickle_step_ = false;
    int others[3], n = 0;
    for (int i = 0; i < 4; ++i)
      if (i != before.dest) others[n++] = i;
    const int dest = others[rng().integers(0, 3)];
    s = encode(after.row, after.col, after.pass, dest);
  }
  s_ = s;
  prob_ = o.prob;
  return {o.reward, o.terminated};
}

void TaxiEnv::write_info(void* const* dst) const {
  std::memcpy(dst[0], &prob_, sizeof(prob_));
  const auto [row, col, pass, dest] = decode(s_);
  auto* mask = static_cast<int8_t*>(dst[1]);
  mask[0] = row < 4;
  mask[1] = row > 0;
  mask[2] = col < 4 && open(row + 1, 2 * col + 2);
  mask[3] = col > 0 && open(row + 1, 2 * col);
  mask[4] = pass < 4 && pad_at(row, col) == pass;
  mask[5] = pass == 4 && (pad_at(row, col) == dest || pad_at(row, col) >= 0);
}

void TaxiEnv::render(uint8_t* rgb, RenderSlot& slot) {
  // Gymnasium turns the taxi to the last action only when it draws a frame, and only for a move.
  if (last_action_ >= 0 && last_action_ <= 3) orientation_ = static_cast<int>(last_action_);
  const auto [row, col, pass, dest] = decode(s_);
  draw_taxi(rgb, {.taxi_row = row, .taxi_col = col, .pass = pass, .dest = dest, .orientation = orientation_},
            sprites(slot));
}

}  // namespace envhive::toy_text
