#include "game.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "numerics.h"
#include "rules.h"

namespace envhive::crafter {

namespace {

constexpr int kMaxItem = 9;  // every item's max in data.yaml
constexpr Pos kDirs[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

bool walkable(Kind kind, Material m) {
  switch (kind) {
    case Kind::kPlayer:
      return m == kGrass || m == kSand || m == kPath || m == kLava;
    case Kind::kArrow:
      return m == kGrass || m == kSand || m == kPath || m == kWater || m == kLava;
    default:
      return m == kGrass || m == kSand || m == kPath;
  }
}

int sign(int v) { return (v > 0) - (v < 0); }

// Python's slice a[start:stop] of a length-n axis, as [lo, hi).
std::pair<int, int> py_slice(int start, int stop, int n) {
  if (start < 0) start = std::max(start + n, 0);
  stop = std::min(stop, n);
  return {start, std::max(start, stop)};
}

}  // namespace

Game::Game(int area_w, int area_h, int update_radius) : world(area_w, area_h), update_radius_(update_radius) {}

void Game::update_daylight() {
  const double progress = std::fmod(static_cast<double>(steps) / 300, 1.0) + 0.3;
  world.daylight = 1 - numpy_pow(std::fabs(numpy_cos(std::numbers::pi * progress)), 3);
}

void Game::reset(uint32_t world_seed) {
  world.reset(world_seed);
  steps = 0;
  update_daylight();
  player = Player{};
  for (int i : {kHealth, kFood, kDrink, kEnergy}) player.inventory[i] = 9;
  player.last_health = player.inventory[kHealth];
  Object body;
  body.kind = Kind::kPlayer;
  body.pos = {world.width() / 2, world.height() / 2};
  player_id = world.add(body);
  generate_world();
}

void Game::step(int action) {
  ++steps;
  update_daylight();
  player.action = action;
  world.live_objects(scratch_ids_);
  for (uint32_t id : scratch_ids_)
    if (distance(player_pos(), world.object(id).pos) < update_radius_) update_object(id);
  if (steps % 10 == 0) {
    const size_t chunks = world.chunks().size();
    for (size_t c = 0; c < chunks; ++c) balance_chunk(c);
  }
}

void Game::hurt(uint32_t id, int amount) {
  if (id == player_id) {
    player.inventory[kHealth] = std::max(0, player.inventory[kHealth] - amount);
  } else {
    Object& obj = world.object(id);
    obj.health = std::max(0, obj.health - amount);
  }
}

bool Game::is_free(Pos target, Kind kind) const {
  return world.object_at(target) == 0 && walkable(kind, world.material(target));
}

bool Game::move_object(uint32_t id, Pos direction) {
  const Object& obj = world.object(id);
  const Pos target = obj.pos + direction;
  if (!is_free(target, obj.kind)) return false;
  world.move(id, target);
  return true;
}

Pos Game::random_dir() { return kDirs[world.random.randint(0, 4)]; }

Pos Game::toward(Pos from, Pos to, bool long_axis) const {
  const Pos offset = to - from;
  const int ax = std::abs(offset.x), ay = std::abs(offset.y);
  if (long_axis ? ax > ay : ax <= ay) return {sign(offset.x), 0};
  return {0, sign(offset.y)};
}

void Game::update_object(uint32_t id) {
  switch (world.object(id).kind) {
    case Kind::kPlayer:
      return update_player();
    case Kind::kCow:
      return update_cow(id);
    case Kind::kZombie:
      return update_zombie(id);
    case Kind::kSkeleton:
      return update_skeleton(id);
    case Kind::kArrow:
      return update_arrow(id);
    case Kind::kPlant:
      return update_plant(id);
  }
}

void Game::update_player() {
  const Pos target = player_pos() + player.facing;
  const Material material = world.material(target);
  const uint32_t obj = world.object_at(target);
  int action = player.action;
  if (player.sleeping) {
    if (player.inventory[kEnergy] < kMaxItem) {
      action = kActSleep;
    } else {
      player.sleeping = false;
      ++player.achievements[kWakeUp];
    }
  }
  if (action >= kActMoveLeft && action <= kActMoveDown) {
    static constexpr Pos kMoves[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    player.facing = kMoves[action - kActMoveLeft];
    move_object(player_id, player.facing);
    if (world.material(player_pos()) == kLava) player.inventory[kHealth] = 0;
  } else if (action == kActDo) {
    if (obj) {
      do_object(obj);
    } else {
      do_material(target, material);
    }
  } else if (action == kActSleep) {
    if (player.inventory[kEnergy] < kMaxItem) player.sleeping = true;
  } else if (action >= kActPlaceStone && action <= kActPlacePlant) {
    place(action, target, material);
  } else if (action >= kActMakeWoodPickaxe) {
    make(action);
  }
  update_life_stats();
  degen_or_regen_health();
  for (int& amount : player.inventory) amount = std::max(0, std::min(amount, kMaxItem));
  if (player.inventory[kHealth] < player.last_health) player.sleeping = false;
  player.last_health = player.inventory[kHealth];
}

void Game::update_life_stats() {
  auto& inv = player.inventory;
  player.hunger += player.sleeping ? 0.5 : 1;
  if (player.hunger > 25) {
    player.hunger = 0;
    inv[kFood] -= 1;
  }
  player.thirst += player.sleeping ? 0.5 : 1;
  if (player.thirst > 20) {
    player.thirst = 0;
    inv[kDrink] -= 1;
  }
  if (player.sleeping) {
    player.fatigue = std::min(player.fatigue - 1, 0.0);
  } else {
    player.fatigue += 1;
  }
  if (player.fatigue < -10) {
    player.fatigue = 0;
    inv[kEnergy] += 1;
  }
  if (player.fatigue > 30) {
    player.fatigue = 0;
    inv[kEnergy] -= 1;
  }
}

void Game::degen_or_regen_health() {
  const auto& inv = player.inventory;
  const bool fine = inv[kFood] > 0 && inv[kDrink] > 0 && (inv[kEnergy] > 0 || player.sleeping);
  if (fine) {
    player.recover += player.sleeping ? 2 : 1;
  } else {
    player.recover -= player.sleeping ? 0.5 : 1;
  }
  if (player.recover > 25) {
    player.recover = 0;
    player.inventory[kHealth] = std::max(0, player.inventory[kHealth] + 1);
  }
  if (player.recover < -15) {
    player.recover = 0;
    player.inventory[kHealth] = std::max(0, player.inventory[kHealth] - 1);
  }
}

void Game::do_object(uint32_t id) {
  auto& inv = player.inventory;
  const int damage = std::max({1, inv[kWoodSword] ? 2 : 0, inv[kStoneSword] ? 3 : 0, inv[kIronSword] ? 5 : 0});
  Object& obj = world.object(id);
  switch (obj.kind) {
    case Kind::kPlant:
      if (obj.grown > 300) {
        obj.grown = 0;
        inv[kFood] += 4;
        ++player.achievements[kEatPlant];
      }
      break;
    case Kind::kZombie:
      hurt(id, damage);
      if (obj.health <= 0) ++player.achievements[kDefeatZombie];
      break;
    case Kind::kSkeleton:
      hurt(id, damage);
      if (obj.health <= 0) ++player.achievements[kDefeatSkeleton];
      break;
    case Kind::kCow:
      hurt(id, damage);
      if (obj.health <= 0) {
        inv[kFood] += 6;
        ++player.achievements[kEatCow];
        player.hunger = 0;
      }
      break;
    default:
      break;
  }
}

void Game::do_material(Pos target, Material material) {
  if (material == kWater) player.thirst = 0;
  for (const CollectRule& rule : collect_rules()) {
    if (rule.material != material) continue;
    for (const Cost& c : rule.require)
      if (player.inventory[c.item] < c.amount) return;
    world.set_material(target, rule.leaves);
    if (world.random.random_sample() <= rule.probability) {
      player.inventory[rule.receive] += 1;
      ++player.achievements[rule.achievement];
    }
    return;
  }
}

void Game::place(int action, Pos target, Material material) {
  if (world.object_at(target)) return;
  const PlaceRule& rule = place_rules()[action - kActPlaceStone];
  if (std::find(rule.where.begin(), rule.where.end(), material) == rule.where.end()) return;
  if (player.inventory[rule.uses.item] < rule.uses.amount) return;
  player.inventory[rule.uses.item] -= rule.uses.amount;
  if (rule.is_material) {
    world.set_material(target, rule.material);
  } else {
    Object plant;
    plant.kind = Kind::kPlant;
    plant.pos = target;
    plant.health = 1;
    world.add(plant);
  }
  ++player.achievements[rule.achievement];
}

void Game::make(int action) {
  const MakeRule& rule = make_rules()[action - kActMakeWoodPickaxe];
  const Pos p = player_pos();
  const auto [x0, x1] = py_slice(p.x - 1, p.x + 2, world.width());
  const auto [y0, y1] = py_slice(p.y - 1, p.y + 2, world.height());
  bool table = false, furnace = false;
  for (int x = x0; x < x1; ++x)
    for (int y = y0; y < y1; ++y) {
      const Material m = world.material({x, y});
      table |= m == kTable;
      furnace |= m == kFurnace;
    }
  if (!table || (rule.needs_furnace && !furnace)) return;
  for (const Cost& c : rule.uses)
    if (player.inventory[c.item] < c.amount) return;
  for (const Cost& c : rule.uses) player.inventory[c.item] -= c.amount;
  player.inventory[rule.gives] += 1;
  ++player.achievements[rule.achievement];
}

void Game::update_cow(uint32_t id) {
  if (world.object(id).health <= 0) world.remove(id);
  if (world.random.random_sample() < 0.5) move_object(id, random_dir());
}

void Game::update_zombie(uint32_t id) {
  if (world.object(id).health <= 0) world.remove(id);
  int dist = distance(world.object(id).pos, player_pos());
  if (dist <= 8 && world.random.random_sample() < 0.9) {
    const bool long_axis = world.random.random_sample() < 0.8;
    move_object(id, toward(world.object(id).pos, player_pos(), long_axis));
  } else {
    move_object(id, random_dir());
  }
  dist = distance(world.object(id).pos, player_pos());
  if (dist <= 1) {
    Object& z = world.object(id);
    if (z.cooldown) {
      z.cooldown -= 1;
    } else {
      hurt(player_id, player.sleeping ? 7 : 2);
      z.cooldown = 5;
    }
  }
}

void Game::update_skeleton(uint32_t id) {
  if (world.object(id).health <= 0) world.remove(id);
  Object& s = world.object(id);
  s.reload = std::max(0, s.reload - 1);
  const int dist = distance(s.pos, player_pos());
  auto& rnd = world.random;
  if (dist <= 3) {
    const bool long_axis = rnd.random_sample() < 0.6;
    const Pos t = toward(world.object(id).pos, player_pos(), long_axis);
    if (move_object(id, {-t.x, -t.y})) return;
  }
  if (dist <= 5 && rnd.random_sample() < 0.5) {
    Object& me = world.object(id);
    const Pos dir = toward(me.pos, player_pos(), true);
    if (me.reload > 0 || (dir.x == 0 && dir.y == 0)) return;
    const Pos at = me.pos + dir;
    if (is_free(at, Kind::kArrow)) {
      Object arrow;
      arrow.kind = Kind::kArrow;
      arrow.pos = at;
      arrow.facing = dir;
      world.add(arrow);  // may reallocate the objects: `me` is not used after this
      world.object(id).reload = 4;
    }
  } else if (dist <= 8 && rnd.random_sample() < 0.3) {
    const bool long_axis = rnd.random_sample() < 0.6;
    move_object(id, toward(world.object(id).pos, player_pos(), long_axis));
  } else if (rnd.random_sample() < 0.2) {
    move_object(id, random_dir());
  }
}

void Game::update_arrow(uint32_t id) {
  const Object& a = world.object(id);
  const Pos target = a.pos + a.facing;
  const Material material = world.material(target);
  if (const uint32_t hit = world.object_at(target)) {
    hurt(hit, 2);
    world.remove(id);
  } else if (!walkable(Kind::kArrow, material)) {
    world.remove(id);
    if (material == kTable || material == kFurnace) world.set_material(target, kPath);
  } else {
    move_object(id, world.object(id).facing);
  }
}

void Game::update_plant(uint32_t id) {
  Object& p = world.object(id);
  p.grown += 1;
  bool threatened = false;
  for (Pos d : kDirs) {
    const uint32_t other = world.object_at(p.pos + d);
    if (other) {
      const Kind k = world.object(other).kind;
      threatened |= k == Kind::kZombie || k == Kind::kSkeleton || k == Kind::kCow;
    }
  }
  if (threatened) p.health = std::max(0, p.health - 1);
  if (p.health <= 0) world.remove(id);
}

void Game::balance_chunk(size_t chunk) {
  const double light = world.daylight;
  balance(chunk, Kind::kZombie, kGrass, 6, 0, 0.3, 0.4, -1, 3.5 - 3 * light);
  balance(chunk, Kind::kSkeleton, kPath, 7, 7, 0.1, 0.1, -2, 2);
  balance(chunk, Kind::kCow, kGrass, 5, 5, 0.01, 0.1, -3, 1.5 + light);
}

// target_min < 0 selects the creature's own rule for it (it depends on the free space).
void Game::balance(size_t chunk, Kind kind, Material material, int spawn_dist, int despawn_dist, double spawn_prob,
                   double despawn_prob, double target_min, double target_max) {
  const Chunk c = world.chunks()[chunk];  // a copy: spawning may add chunks
  scratch_ids_.clear();
  for (uint32_t id : c.members)
    if (world.object(id).kind == kind) scratch_ids_.push_back(id);
  const int space = world.count_in(c, material);
  if (target_min == -1) target_min = space < 50 ? 0 : 3.5 - 3 * world.daylight;
  if (target_min == -2) target_min = space < 6 ? 0 : 1;
  if (target_min == -3) target_min = space < 30 ? 0 : 1;
  const auto count = static_cast<int64_t>(scratch_ids_.size());
  auto& rnd = world.random;
  if (count < static_cast<int64_t>(target_min) && rnd.random_sample() < spawn_prob) {
    scratch_cells_.clear();
    for (int x = c.xmin; x < c.xmax; ++x)
      for (int y = c.ymin; y < c.ymax; ++y)
        if (world.material({x, y}) == material) scratch_cells_.push_back({x, y});
    const Pos pos = scratch_cells_[rnd.randint(0, static_cast<int64_t>(scratch_cells_.size()))];
    if (world.object_at(pos) == 0 && distance(player_pos(), pos) >= spawn_dist) {
      Object obj;
      obj.kind = kind;
      obj.pos = pos;
      obj.health = kind == Kind::kZombie ? 5 : 3;
      world.add(obj);
    }
  } else if (count > static_cast<int64_t>(target_max) && rnd.random_sample() < despawn_prob) {
    const uint32_t id = scratch_ids_[rnd.randint(0, count)];
    if (distance(player_pos(), world.object(id).pos) >= despawn_dist) world.remove(id);
  }
}

}  // namespace envhive::crafter
