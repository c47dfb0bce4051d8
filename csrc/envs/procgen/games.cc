#include "games.h"

#include <algorithm>
#include <stdexcept>

namespace envhive::procgen {

namespace {
constexpr Mode E = Mode::kEasy, H = Mode::kHard, X = Mode::kExtreme, M = Mode::kMemory, P = Mode::kExploration;
}

// Modes: procgen's Game::parse_options (easy and hard for all; extreme and memory for the games it
// names) and EXPLORATION_LEVEL_SEEDS in procgen/env.py; timeouts: each game's game_init (1000
// unless it sets another) and jumper's game_reset (2000 in memory mode). The tests check each
// against the engine's own serialized state (Game::serialize writes it).
const std::vector<Game>& games() {
  static const std::vector<Game> table = {
      {"bigfish", "Bigfish", 6000, {E, H}},
      {"bossfight", "Bossfight", 4000, {E, H}},
      {"caveflyer", "Caveflyer", 1000, {E, H, M, P}, 1259048185},
      {"chaser", "Chaser", 1000, {E, H, X}},
      {"climber", "Climber", 1000, {E, H, P}, 1561126160},
      {"coinrun", "Coinrun", 1000, {E, H, P}, 1949448038},
      {"dodgeball", "Dodgeball", 1000, {E, H, X, M}},
      {"fruitbot", "Fruitbot", 1000, {E, H}},
      {"heist", "Heist", 1000, {E, H, M, P}, 876640971},
      {"jumper", "Jumper", 1000, {E, H, M, P}, 1434825276},
      {"leaper", "Leaper", 500, {E, H, X, P}, 1318677581},
      {"maze", "Maze", 500, {E, H, M, P}, 158988835},
      {"miner", "Miner", 1000, {E, H, M}},
      {"ninja", "Ninja", 1000, {E, H, P}, 1123500215},
      {"plunder", "Plunder", 4000, {E, H}},
      {"starpilot", "Starpilot", 1000, {E, H, X}},
  };
  return table;
}

const Game& game_named(const std::string& name) {
  for (const Game& g : games())
    if (name == g.name) return g;
  throw std::invalid_argument("procgen has no game '" + name + "'");
}

Mode mode_from_name(const std::string& name) {
  for (Mode m : {E, H, X, M, P})
    if (name == mode_name(m)) return m;
  throw std::invalid_argument("distribution_mode must be one of 'easy', 'hard', 'extreme', 'memory', 'exploration', got '" +
                              name + "'");
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kEasy: return "easy";
    case Mode::kHard: return "hard";
    case Mode::kExtreme: return "extreme";
    case Mode::kMemory: return "memory";
    case Mode::kExploration: return "exploration";
  }
  return "?";
}

const char* mode_title(Mode mode) {
  switch (mode) {
    case Mode::kEasy: return "Easy";
    case Mode::kHard: return "Hard";
    case Mode::kExtreme: return "Extreme";
    case Mode::kMemory: return "Memory";
    case Mode::kExploration: return "Exploration";
  }
  return "?";
}

bool supports(const Game& game, Mode mode) {
  return std::find(game.modes.begin(), game.modes.end(), mode) != game.modes.end();
}

int32_t timeout_of(const Game& game, Mode mode) {
  if (mode == Mode::kMemory && std::string(game.name) == "jumper") return 2000;
  return game.timeout;
}

}  // namespace envhive::procgen
