#include "action_set.h"

#include <algorithm>

namespace envhive::vizdoom {

namespace {

constexpr const char* kButtonNames[kButtonCount] = {
    "ATTACK", "USE", "JUMP", "CROUCH", "TURN180", "ALTATTACK", "RELOAD", "ZOOM", "SPEED", "STRAFE",
    "MOVE_RIGHT", "MOVE_LEFT", "MOVE_BACKWARD", "MOVE_FORWARD", "TURN_RIGHT", "TURN_LEFT", "LOOK_UP",
    "LOOK_DOWN", "MOVE_UP", "MOVE_DOWN", "LAND", "SELECT_WEAPON1", "SELECT_WEAPON2", "SELECT_WEAPON3",
    "SELECT_WEAPON4", "SELECT_WEAPON5", "SELECT_WEAPON6", "SELECT_WEAPON7", "SELECT_WEAPON8", "SELECT_WEAPON9",
    "SELECT_WEAPON0", "SELECT_NEXT_WEAPON", "SELECT_PREV_WEAPON", "DROP_SELECTED_WEAPON", "ACTIVATE_SELECTED_ITEM",
    "SELECT_NEXT_ITEM", "SELECT_PREV_ITEM", "DROP_SELECTED_ITEM", "LOOK_UP_DOWN_DELTA", "TURN_LEFT_RIGHT_DELTA",
    "MOVE_FORWARD_BACKWARD_DELTA", "MOVE_LEFT_RIGHT_DELTA", "MOVE_UP_DOWN_DELTA"};

constexpr int kSpeed = 8, kFirstWeapon = 21, kLastWeapon = 30, kAfterWeapons = 31, kFirstDelta = 38;
constexpr int kPairs[] = {10, 12, 14, 16, 18, 31, 35};  // a pair is (b, b + 1)

struct Walk {
  std::array<int, kButtonCount> slot;  // button id -> its column (-1: not available)
  bool force_speed;
  const std::array<DeltaSteps, kButtonCount>& deltas;
  std::vector<double> row;
  std::vector<std::vector<double>> out;

  void from(int b) {
    if (b == kButtonCount) {
      out.push_back(row);
      return;
    }
    if (b >= kFirstDelta) {
      const DeltaSteps& d = deltas[static_cast<size_t>(b)];
      if (d.num <= 1 || slot[b] < 0) return from(b + 1);
      const float step = (d.high - d.low) / static_cast<float>(d.num - 1);
      float value = d.low;
      for (int i = 0; i < d.num; ++i, value += step) {
        row[static_cast<size_t>(slot[b])] = value;
        from(b + 1);
      }
      return;  // (the last value stays in the row, as EnvPool leaves it)
    }
    if (b >= kFirstWeapon && b <= kLastWeapon) {
      from(kAfterWeapons);
      for (int w = kFirstWeapon; w <= kLastWeapon; ++w) {
        if (slot[w] < 0) continue;
        row[static_cast<size_t>(slot[w])] = 1;
        from(kAfterWeapons);
        row[static_cast<size_t>(slot[w])] = 0;
      }
      return;
    }
    if (std::find(std::begin(kPairs), std::end(kPairs), b) != std::end(kPairs) && slot[b] >= 0 && slot[b + 1] >= 0) {
      from(b + 2);
      row[static_cast<size_t>(slot[b])] = 1;
      from(b + 2);
      row[static_cast<size_t>(slot[b])] = 0;
      row[static_cast<size_t>(slot[b + 1])] = 1;
      from(b + 2);
      row[static_cast<size_t>(slot[b + 1])] = 0;
      return;
    }
    if (slot[b] < 0) return from(b + 1);
    if (b == kSpeed && force_speed) {
      row[static_cast<size_t>(slot[b])] = 1;
      return from(b + 1);  // (SPEED stays pressed for the rest of the walk, as in EnvPool)
    }
    from(b + 1);
    row[static_cast<size_t>(slot[b])] = 1;
    from(b + 1);
    row[static_cast<size_t>(slot[b])] = 0;
  }
};

}  // namespace

const char* button_name(int b) { return b >= 0 && b < kButtonCount ? kButtonNames[b] : "?"; }

int button_id(const std::string& name) {
  for (int b = 0; b < kButtonCount; ++b)
    if (name == kButtonNames[b]) return b;
  return -1;
}

std::vector<std::vector<double>> combined_actions(const std::vector<int>& available, bool force_speed,
                                                  const std::array<DeltaSteps, kButtonCount>& deltas) {
  Walk walk{{}, force_speed, deltas, std::vector<double>(available.size(), 0.0), {}};
  walk.slot.fill(-1);
  for (size_t i = 0; i < available.size(); ++i)
    if (available[i] >= 0 && available[i] < kButtonCount) walk.slot[static_cast<size_t>(available[i])] = static_cast<int>(i);
  walk.from(0);
  return walk.out;
}

}  // namespace envhive::vizdoom
