// EnvPool's combined actions for ViZDoom (use_combined_action=True): the Discrete action set built
// from a scenario's available buttons, in the order EnvPool 1.2.5 enumerates it, so action k means
// the same button values in both. Each row holds one value per available button (their order).
//
// The enumeration walks ViZDoom's button ids 0..42 in order, each choice "off" before "on":
//  - a button alone: off, on (SPEED with force_speed: on only);
//  - the pairs MOVE_RIGHT/LEFT, MOVE_BACKWARD/FORWARD, TURN_RIGHT/LEFT, LOOK_UP/DOWN, MOVE_UP/DOWN,
//    SELECT_NEXT/PREV_WEAPON, SELECT_NEXT/PREV_ITEM, when both are available: neither, the first,
//    the second (never both);
//  - SELECT_WEAPON1..0 together: none, then each available one alone;
//  - a delta button with a config {num, low, high}, num > 1: num values from low in steps of
//    (high - low) / (num - 1), accumulated in float; otherwise 0.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace envhive::vizdoom {

inline constexpr int kButtonCount = 43;  // ViZDoom's Button enum: ATTACK = 0 .. MOVE_UP_DOWN_DELTA = 42

struct DeltaSteps {
  int num = 0;
  float low = 0.0f, high = 0.0f;
};

// ViZDoom's name of button id b ("ATTACK", ...), and the id of a name (-1: none).
const char* button_name(int b);
int button_id(const std::string& name);

// `available`: the scenario's buttons (ids) in their order; `deltas[b]`: delta button b's steps.
std::vector<std::vector<double>> combined_actions(const std::vector<int>& available, bool force_speed,
                                                  const std::array<DeltaSteps, kButtonCount>& deltas);

}  // namespace envhive::vizdoom
