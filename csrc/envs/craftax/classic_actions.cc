// Craftax-Classic's step, part one: the player's crafting, interaction, placing, movement, plants
// and intrinsics (craftax_classic/game_logic.py), plus reset and the step's assembly.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "classic_state.h"

namespace envhive::craftax {
namespace classic {

bool is_solid(uint8_t b) {
  switch (b) {
    case kWater: case kStone: case kTree: case kCoal: case kIron: case kDiamond: case kCraftingTable:
    case kFurnace: case kPlant: case kRipePlant:
      return true;
    default:
      return false;
  }
}

bool is_in_mob(const ClassicState& s, const ClassicParams& p, Vec2 v) { return read(s.mob_map, p, v) || s.player == v; }

// is_position_in_bounds_not_in_wall_not_in_mob_not_in_lava.
bool can_move_to(const ClassicState& s, const ClassicParams& p, Vec2 v) {
  const uint8_t b = read(s.map, p, v);
  return in_bounds(p, v) && !is_solid(b) && !is_in_mob(s, p, v) && b != kLava;
}

Vec2 direction_of(int32_t action) {
  static constexpr Vec2 kDirs[5] = {{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}};
  return action >= 0 && action < 5 ? kDirs[action] : Vec2{0, 0};
}

// calculate_light_level(timestep, params) as the jitted env computes it (params are traced, so the
// division is a real one), in float32. Whether XLA fuses 1 - c * c^2 into one multiply-add depends
// on the program around it: it does in the jitted reset, not in the auto-resetting step.
float light_level_at(int32_t timestep, const ClassicParams& p, bool fused) {
  const float day = p.light_reciprocal ? static_cast<float>(timestep) * (1.0f / static_cast<float>(p.day_length))
                                       : static_cast<float>(timestep) / static_cast<float>(p.day_length);
  const float progress = std::fmod(day, 1.0f) + 0.3f;
  const float c = std::fabs(std::cos(3.14159265f * progress));
  return fused ? std::fma(-c, c * c, 1.0f) : 1.0f - c * (c * c);
}

namespace {

bool near_block(const ClassicState& s, const ClassicParams& p, uint8_t block) {
  static constexpr Vec2 kClose[8] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
  for (Vec2 d : kClose) {
    const Vec2 v = s.player + d;
    if (in_bounds(p, v) && read(s.map, p, v) == block) return true;
  }
  return false;
}

int32_t attack_damage(const ClassicState& s) {
  return std::max({1, 2 * s.inventory[kWoodSword], 3 * s.inventory[kStoneSword], 5 * s.inventory[kIronSword]});
}

// The player hitting mob `mobs` at `block`: returns (attacked, killed).
std::pair<bool, bool> attack(Mobs& mobs, Vec2 block, int32_t damage) {
  size_t target = 0;
  bool attacking = false;
  for (size_t i = 0; i < mobs.mask.size(); ++i)
    if (mobs.position[i] == block && mobs.mask[i]) {
      if (!attacking) target = i;
      attacking = true;
    }
  mobs.health[target] += -damage * attacking;
  const bool old_mask = mobs.mask[target];
  for (size_t i = 0; i < mobs.mask.size(); ++i) mobs.mask[i] = mobs.health[i] > 0;
  return {attacking, old_mask && !mobs.mask[target]};
}

}  // namespace

void do_action(Key key, ClassicState& s, int32_t action, const ClassicParams& p) {
  if (action != kDo) return;  // every result is discarded unless the action is DO (its draw is keyed)
  const Vec2 block = s.player + direction_of(s.direction);
  const int32_t damage = attack_damage(s);
  const auto [hit_zombie, killed_zombie] = attack(s.zombies, block, damage);
  s.achievements[kAchDefeatZombie] |= killed_zombie;
  const auto [hit_cow, killed_cow] = attack(s.cows, block, damage);
  s.achievements[kAchEatCow] |= killed_cow;
  if (killed_cow) {
    s.food = std::min(9, s.food + 6);
    s.hunger = 0.0f;
  }
  const auto [hit_skeleton, killed_skeleton] = attack(s.skeletons, block, damage);
  s.achievements[kAchDefeatSkeleton] |= killed_skeleton;
  const bool attacked = hit_zombie || hit_cow || hit_skeleton;
  const bool killed = killed_zombie || killed_cow || killed_skeleton;
  write(s.mob_map, p, block, read(s.mob_map, p, block) && !killed);

  const uint8_t m = read(s.map, p, block);
  std::vector<uint8_t> map = s.map;
  auto inv = s.inventory;
  auto ach = s.achievements;
  auto mine = [&](uint8_t type, bool can, uint8_t leaves, int item, int achievement) {
    const bool mining = m == type && can;
    write(map, p, block, mining ? leaves : read(map, p, block));
    inv[item] = s.inventory[item] + mining;
    ach[achievement] |= mining;
  };
  mine(kTree, true, kGrass, kWoodItem, kAchCollectWood);
  mine(kStone, s.inventory[kWoodPickaxe] != 0, kPath, kStoneItem, kAchCollectStone);
  mine(kCoal, s.inventory[kWoodPickaxe] != 0, kPath, kCoalItem, kAchCollectCoal);
  mine(kIron, s.inventory[kStonePickaxe] != 0, kPath, kIronItem, kAchCollectIron);
  mine(kDiamond, s.inventory[kIronPickaxe] != 0, kPath, kDiamondItem, kAchCollectDiamond);
  const bool sapling = m == kGrass && uniform01(split_at(key, 1), 0) < 0.1f;
  inv[kSapling] = s.inventory[kSapling] + sapling;
  ach[kAchCollectSapling] |= sapling;
  const bool drinking = m == kWater;
  const int32_t drink = drinking ? std::min(9, s.drink + 1) : s.drink;
  const float thirst = drinking ? 0.0f : s.thirst;
  ach[kAchCollectDrink] |= drinking;
  const bool eating = m == kRipePlant;
  write(map, p, block, eating ? kPlant : read(map, p, block));
  const int32_t food = eating ? std::min(9, s.food + 4) : s.food;
  const float hunger = eating ? 0.0f : s.hunger;
  ach[kAchEatPlant] |= eating;
  if (in_bounds(p, block) && !attacked) {
    s.map = std::move(map);
    s.inventory = inv;
    s.drink = drink;
    s.thirst = thirst;
    s.food = food;
    s.hunger = hunger;
    if (eating) {
      size_t plant = 0;
      for (size_t i = 0; i < s.plant_position.size(); ++i)
        if (s.plant_position[i] == block) {
          plant = i;
          break;
        }
      s.plant_age[plant] = 0;
    }
    s.achievements = ach;
  }
}

void craft(ClassicState& s, int32_t action, const ClassicParams& p) {
  const bool table = near_block(s, p, kCraftingTable), furnace = near_block(s, p, kFurnace);
  auto& inv = s.inventory;
  auto make = [&](int32_t act, std::initializer_list<int> uses, bool needs_furnace, int gives, int achievement) {
    bool can = true;
    for (int item : uses) can &= inv[item] >= 1;
    const bool crafting = action == act && can && table && (!needs_furnace || furnace);
    for (int item : uses) inv[item] -= crafting;
    inv[gives] += crafting;
    s.achievements[achievement] |= crafting;
  };
  make(kMakeWoodPickaxe, {kWoodItem}, false, kWoodPickaxe, kAchMakeWoodPickaxe);
  make(kMakeStonePickaxe, {kWoodItem, kStoneItem}, false, kStonePickaxe, kAchMakeStonePickaxe);
  make(kMakeIronPickaxe, {kWoodItem, kStoneItem, kIronItem, kCoalItem}, true, kIronPickaxe, kAchMakeIronPickaxe);
  make(kMakeWoodSword, {kWoodItem}, false, kWoodSword, kAchMakeWoodSword);
  make(kMakeStoneSword, {kWoodItem, kStoneItem}, false, kStoneSword, kAchMakeStoneSword);
  make(kMakeIronSword, {kWoodItem, kStoneItem, kIronItem, kCoalItem}, true, kIronSword, kAchMakeIronSword);
}

void place_block(ClassicState& s, int32_t action, const ClassicParams& p) {
  const Vec2 pos = s.player + direction_of(s.direction);
  const uint8_t m0 = read(s.map, p, pos);
  const bool wall = is_solid(m0);
  std::vector<uint8_t> map = s.map;
  auto inv = s.inventory;
  auto ach = s.achievements;
  const bool table = action == kPlaceTable && !wall && inv[kWoodItem] >= 2;
  write(map, p, pos, table ? kCraftingTable : m0);
  inv[kWoodItem] -= 2 * table;
  ach[kAchPlaceTable] |= table;
  const bool furnace = action == kPlaceFurnace && !wall && inv[kStoneItem] > 0;
  write(map, p, pos, furnace ? kFurnace : read(map, p, pos));
  inv[kStoneItem] -= furnace;
  ach[kAchPlaceFurnace] |= furnace;
  const bool stone = action == kPlaceStone && (m0 == kWater || !wall) && inv[kStoneItem] > 0;
  write(map, p, pos, stone ? kStone : read(map, p, pos));
  inv[kStoneItem] -= stone;
  ach[kAchPlaceStone] |= stone;
  const bool plant = action == kPlacePlant && read(map, p, pos) == kGrass && inv[kSapling] > 0;
  write(map, p, pos, plant ? kPlant : read(map, p, pos));
  inv[kSapling] -= plant;
  ach[kAchPlacePlant] |= plant;
  if (!in_bounds(p, pos) || is_in_mob(s, p, pos)) return;
  if (plant) {
    for (size_t i = 0; i < s.plant_mask.size(); ++i)
      if (!s.plant_mask[i]) {
        s.plant_position[i] = pos;
        s.plant_age[i] = 0;
        s.plant_mask[i] = 1;
        break;
      }
  }
  s.map = std::move(map);
  s.inventory = inv;
  s.achievements = ach;
}

void move_player(ClassicState& s, int32_t action, const ClassicParams& p) {
  const Vec2 d = direction_of(action);
  const Vec2 proposed = s.player + d;
  const bool valid = can_move_to(s, p, proposed) || read(s.map, p, proposed) == kLava;
  if (valid) s.player = proposed;
  if (d.x != 0 || d.y != 0) s.direction = action;
}

void update_plants(ClassicState& s, const ClassicParams& p) {
  for (size_t i = 0; i < s.plant_age.size(); ++i) s.plant_age[i] = (s.plant_age[i] + 1) * s.plant_mask[i];
  for (size_t i = 0; i < s.plant_age.size(); ++i) {
    const bool ripe = s.plant_age[i] >= 600;
    write(s.map, p, s.plant_position[i], ripe ? kRipePlant : read(s.map, p, s.plant_position[i]));
  }
}

void update_intrinsics(ClassicState& s, int32_t action) {
  s.sleeping = s.sleeping || (action == kSleep && s.energy < 9);
  const bool waking = s.energy >= 9 && s.sleeping;
  s.sleeping = s.sleeping && !waking;
  s.achievements[kAchWakeUp] |= waking;
  float hunger = s.hunger + (s.sleeping ? 0.5f : 1.0f);
  if (hunger > 25) {
    s.food = std::max(s.food - 1, 0);
    hunger = 0.0f;
  }
  s.hunger = hunger;
  float thirst = s.thirst + (s.sleeping ? 0.5f : 1.0f);
  if (thirst > 20) {
    s.drink = std::max(s.drink - 1, 0);
    thirst = 0.0f;
  }
  s.thirst = thirst;
  float fatigue = s.sleeping ? std::min(s.fatigue - 1.0f, 0.0f) : s.fatigue + 1.0f;
  int32_t energy = s.energy;
  if (fatigue > 30) {
    energy = std::max(s.energy - 1, 0);
    fatigue = 0.0f;
  }
  if (fatigue < -10) {
    energy = std::min(s.energy + 1, 9);
    fatigue = 0.0f;
  }
  s.fatigue = fatigue;
  s.energy = energy;
  const bool all = s.food > 0 && s.drink > 0 && (s.energy > 0 || s.sleeping);
  float recover = s.recover + (all ? (s.sleeping ? 2.0f : 1.0f) : (s.sleeping ? -0.5f : -1.0f));
  int32_t health = s.health;
  if (recover > 25) {
    health = std::min(s.health + 1, 9);
    recover = 0.0f;
  }
  if (recover < -15) {
    health = s.health - 1;
    recover = 0.0f;
  }
  s.recover = recover;
  s.health = health;
}

}  // namespace classic

ClassicState classic_reset(Key key, const ClassicParams& p, bool in_step) {
  ClassicWorld w = generate_classic_world(key, p.width, p.height, p.always_diamond);
  ClassicState s;
  s.map = std::move(w.map);
  s.mob_map.assign(s.map.size(), 0);
  s.player = {p.width / 2, p.height / 2};
  s.zombies.resize(p.max_zombies, 1);
  s.skeletons.resize(p.max_skeletons, 0);
  s.arrows.resize(p.max_arrows, 0);
  s.arrow_directions.assign(p.max_arrows, {1, 1});
  s.cows.resize(p.max_cows, p.cow_health);
  s.plant_position.assign(p.max_plants, {});
  s.plant_age.assign(p.max_plants, 0);
  s.plant_mask.assign(p.max_plants, 0);
  s.light_level = classic::light_level_at(0, p, !in_step);
  s.state_rng = w.state_rng;
  return s;
}

float classic_step(Key key, ClassicState& s, int32_t action, const ClassicParams& p, bool& done) {
  using namespace classic;
  int init_achievements = 0;
  for (auto a : s.achievements) init_achievements += a;
  const int32_t init_health = s.health;
  if (s.sleeping) action = kNoop;
  craft(s, action, p);
  Key rng = key;
  auto next = [&rng]() {
    const Key sub = split_at(rng, 1);
    rng = split_at(rng, 0);
    return sub;
  };
  do_action(next(), s, action, p);
  place_block(s, action, p);
  move_player(s, action, p);
  update_mobs(next(), s, p);
  spawn_mobs(next(), s, p);
  update_plants(s, p);
  update_intrinsics(s, action);
  for (auto& v : s.inventory) v = std::min(v, 9);
  if (read(s.map, p, s.player) == kLava) s.health = 0;
  s.health = std::max(0, s.health);
  int achievements = 0;
  for (auto a : s.achievements) achievements += a;
  const float achievement_reward = static_cast<float>(achievements) - static_cast<float>(init_achievements);
  // XLA fuses the health term's multiply into the add.
  const float reward = std::fma(static_cast<float>(s.health - init_health), 0.1f, achievement_reward);
  s.state_rng = next();
  s.timestep += 1;
  s.light_level = light_level_at(s.timestep, p, false);
  done = s.timestep >= p.max_timesteps || read(s.map, p, s.player) == kLava || s.health <= 0;
  return reward;
}

float classic_autoreset_step(Key key, ClassicState& s, int32_t action, const ClassicParams& p, bool& done) {
  const float reward = classic_step(split_at(key, 0), s, action, p, done);
  if (done) s = classic_reset(split_at(key, 1), p, true);
  return reward;
}

}  // namespace envhive::craftax
