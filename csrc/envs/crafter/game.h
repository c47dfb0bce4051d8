// One crafter game: the world, the player and the rules of a step (crafter's Env.reset/step less
// the rendering), in crafter's order of updates and random draws.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "world.h"

namespace envhive::crafter {

// data.yaml's actions, in order.
enum Action : int {
  kActNoop, kActMoveLeft, kActMoveRight, kActMoveUp, kActMoveDown, kActDo, kActSleep, kActPlaceStone, kActPlaceTable, kActPlaceFurnace,
  kActPlacePlant, kActMakeWoodPickaxe, kActMakeStonePickaxe, kActMakeIronPickaxe, kActMakeWoodSword, kActMakeStoneSword,
  kActMakeIronSword,
};
inline constexpr int kNumActions = 17;

class Game {
 public:
  // `update_radius`: objects closer (Manhattan) than this to the player are updated each step
  // (crafter's 2 * max(view)).
  Game(int area_w, int area_h, int update_radius);

  // A new world from World.reset's seed: crafter's Env.reset less the observation.
  void reset(uint32_t world_seed);
  // Everything of Env.step before the observation: the clock, the objects' updates (the player
  // first) and, every 10th step, the balancing of creatures in each chunk.
  void step(int action);

  World world;
  Player player;
  uint32_t player_id = 1;
  int64_t steps = 0;

  Pos player_pos() const { return world.object(player_id).pos; }
  int health() const { return player.inventory[kHealth]; }

 private:
  void update_daylight();
  void update_player();
  void update_object(uint32_t id);
  void update_cow(uint32_t id);
  void update_zombie(uint32_t id);
  void update_skeleton(uint32_t id);
  void update_arrow(uint32_t id);
  void update_plant(uint32_t id);
  // Object.move: moves when the target is free for the object's kind; true when it was free
  // (even for an object removed earlier in its update, which then stays put).
  bool move_object(uint32_t id, Pos direction);
  bool is_free(Pos target, Kind kind) const;
  Pos random_dir();
  Pos toward(Pos from, Pos to, bool long_axis) const;
  // Object.health -= amount, floored at 0 (the player's health is its inventory's).
  void hurt(uint32_t id, int amount);

  void do_object(uint32_t id);
  void do_material(Pos target, Material material);
  void place(int action, Pos target, Material material);
  void make(int action);
  void update_life_stats();
  void degen_or_regen_health();

  void balance_chunk(size_t chunk);
  void balance(size_t chunk, Kind kind, Material material, int spawn_dist, int despawn_dist, double spawn_prob,
               double despawn_prob, double target_min, double target_max);

  void generate_world();

  int update_radius_;
  std::vector<uint32_t> scratch_ids_;
  std::vector<Pos> scratch_cells_;
};

}  // namespace envhive::crafter
