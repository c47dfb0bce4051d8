// The 16 Procgen games and what procgen 0.10.7 allows each: its distribution modes, its own episode
// clock (Game::timeout, set by the game), and the level of its exploration mode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace envhive::procgen {

// procgen's DistributionMode values (game.h); exploration is procgen's Python-side mode: hard,
// with num_levels=1 and start_level the game's exploration level.
enum class Mode : int32_t { kEasy = 0, kHard = 1, kExtreme = 2, kMemory = 10, kExploration = 20 };

struct Game {
  const char* name;        // procgen's env_name, "coinrun"
  const char* title;       // EnvPool's id stem, "Coinrun"
  int32_t timeout;         // steps after which the engine ends a level itself (its Game::timeout)
  std::vector<Mode> modes; // the modes procgen accepts for it
  int32_t exploration_level = -1;  // start_level of exploration mode (-1: no such mode)
};

const std::vector<Game>& games();
const Game& game_named(const std::string& name);  // throws std::invalid_argument

// "easy" -> Mode::kEasy; throws std::invalid_argument naming the modes for another name.
Mode mode_from_name(const std::string& name);
const char* mode_name(Mode mode);   // "easy", ...
const char* mode_title(Mode mode);  // EnvPool's id part: "Easy", ...
bool supports(const Game& game, Mode mode);
// The engine's own clock for this game and mode (jumper's memory mode doubles it).
int32_t timeout_of(const Game& game, Mode mode);

}  // namespace envhive::procgen
