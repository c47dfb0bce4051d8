// Craftax-Classic's EnvState (craftax 1.6.1, craftax_classic/envs/craftax_state.py) and its step,
// as the jitted reference computes them: every slot of every mob array is updated (dead mobs keep
// drifting and drawing), positions index the map with JAX's rules (a negative index counts from
// the end; a read past an edge is clamped, a write past it is dropped), float32 arithmetic as XLA's
// CPU backend does it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "classic_world.h"
#include "jax_random.h"

namespace envhive::craftax {

enum ClassicAction : int32_t {
  kNoop, kLeft, kRight, kUp, kDown, kDo, kSleep, kPlaceStone, kPlaceTable, kPlaceFurnace, kPlacePlant,
  kMakeWoodPickaxe, kMakeStonePickaxe, kMakeIronPickaxe, kMakeWoodSword, kMakeStoneSword, kMakeIronSword,
};
inline constexpr int kClassicActions = 17;

enum ClassicAchievement : int {
  kAchCollectWood, kAchPlaceTable, kAchEatCow, kAchCollectSapling, kAchCollectDrink, kAchMakeWoodPickaxe, kAchMakeWoodSword, kAchPlacePlant,
  kAchDefeatZombie, kAchCollectStone, kAchPlaceStone, kAchEatPlant, kAchDefeatSkeleton, kAchMakeStonePickaxe, kAchMakeStoneSword, kAchWakeUp,
  kAchPlaceFurnace, kAchCollectCoal, kAchCollectIron, kAchCollectDiamond, kAchMakeIronPickaxe, kAchMakeIronSword,
};
inline constexpr int kClassicAchievements = 22;

// Inventory fields in craftax's order.
enum ClassicItem : int {
  kWoodItem, kStoneItem, kCoalItem, kIronItem, kDiamondItem, kSapling, kWoodPickaxe, kStonePickaxe, kIronPickaxe,
  kWoodSword, kStoneSword, kIronSword,
};
inline constexpr int kClassicItems = 12;

struct Vec2 {
  int32_t x = 0, y = 0;
  Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
  bool operator==(const Vec2&) const = default;
};

struct Mobs {
  std::vector<Vec2> position;
  std::vector<int32_t> health;
  std::vector<uint8_t> mask;
  std::vector<int32_t> cooldown;
  void resize(size_t n, int32_t health0) {
    position.assign(n, {});
    health.assign(n, health0);
    mask.assign(n, 0);
    cooldown.assign(n, 0);
  }
};

struct ClassicParams {  // EnvParams() and StaticEnvParams() defaults
  int32_t max_timesteps = 10000, day_length = 300;
  bool always_diamond = true;
  int32_t zombie_health = 5, cow_health = 3, skeleton_health = 3, despawn_distance = 14;
  float spawn_cow = 0.1f, spawn_zombie_base = 0.02f, spawn_zombie_night = 0.1f, spawn_skeleton = 0.05f;
  int width = 64, height = 64;
  int max_zombies = 3, max_cows = 3, max_plants = 10, max_skeletons = 2, max_arrows = 3;
  // Whether XLA turns the light level's timestep / day_length into a multiply by the float32
  // reciprocal: it does in the vmapped program envhive follows, not in a single env's jitted step.
  bool light_reciprocal = true;
};

struct ClassicState {
  std::vector<uint8_t> map, mob_map;  // [x * height + y]
  Vec2 player;
  int32_t direction = kUp;
  int32_t health = 9, food = 9, drink = 9, energy = 9;
  bool sleeping = false;
  float recover = 0, hunger = 0, thirst = 0, fatigue = 0;
  std::array<int32_t, kClassicItems> inventory{};
  Mobs zombies, cows, skeletons, arrows;
  std::vector<Vec2> arrow_directions;
  std::vector<Vec2> plant_position;
  std::vector<int32_t> plant_age;
  std::vector<uint8_t> plant_mask;
  float light_level = 0;
  std::array<uint8_t, kClassicAchievements> achievements{};
  Key state_rng;
  int32_t timestep = 0;
};

// reset_env(key): generate_world's state (`in_step`: computed inside the auto-resetting step's
// program rather than the jitted reset, which XLA compiles its light level differently in).
ClassicState classic_reset(Key key, const ClassicParams& p, bool in_step = false);
// step_env(key, state, action): craftax_step; returns the reward (float32), and `done` (is_game_over).
float classic_step(Key key, ClassicState& s, int32_t action, const ClassicParams& p, bool& done);
// The auto-resetting step of the *-v1 ids: split(key) into (step, reset) keys, step, reset when done.
float classic_autoreset_step(Key key, ClassicState& s, int32_t action, const ClassicParams& p, bool& done);
// render_craftax_symbolic(state): 1345 float32.
void classic_symbolic_obs(const ClassicState& s, const ClassicParams& p, float* out);
inline constexpr int kClassicSymbolicSize = 7 * 9 * 21 + 12 + 4 + 4 + 2;

// The parts of the step (classic_actions.cc, classic_mobs.cc).
namespace classic {
// JAX indexing of an axis of length n: a read clamps (after counting a negative index from the end),
// a write outside is dropped.
inline int read_index(int32_t i, int n) {
  if (i < 0) i += n;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}
inline bool write_index(int32_t i, int n, int& out) {
  if (i < 0) i += n;
  out = i;
  return i >= 0 && i < n;
}
inline uint8_t read(const std::vector<uint8_t>& m, const ClassicParams& p, Vec2 v) {
  return m[static_cast<size_t>(read_index(v.x, p.width)) * p.height + read_index(v.y, p.height)];
}
inline void write(std::vector<uint8_t>& m, const ClassicParams& p, Vec2 v, uint8_t value) {
  int x, y;
  if (write_index(v.x, p.width, x) && write_index(v.y, p.height, y)) m[static_cast<size_t>(x) * p.height + y] = value;
}
inline bool in_bounds(const ClassicParams& p, Vec2 v) { return v.x >= 0 && v.x < p.width && v.y >= 0 && v.y < p.height; }
bool is_solid(uint8_t block);
bool is_in_mob(const ClassicState& s, const ClassicParams& p, Vec2 v);
bool can_move_to(const ClassicState& s, const ClassicParams& p, Vec2 v);
Vec2 direction_of(int32_t action);
float light_level_at(int32_t timestep, const ClassicParams& p, bool fused);

void craft(ClassicState& s, int32_t action, const ClassicParams& p);
void do_action(Key key, ClassicState& s, int32_t action, const ClassicParams& p);
void place_block(ClassicState& s, int32_t action, const ClassicParams& p);
void move_player(ClassicState& s, int32_t action, const ClassicParams& p);
void update_mobs(Key key, ClassicState& s, const ClassicParams& p);
void spawn_mobs(Key key, ClassicState& s, const ClassicParams& p);
void update_plants(ClassicState& s, const ClassicParams& p);
void update_intrinsics(ClassicState& s, int32_t action);
}  // namespace classic

}  // namespace envhive::craftax
