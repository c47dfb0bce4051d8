// Craftax-Classic's step, part two: zombies, cows, skeletons and arrows moving (every slot, alive
// or not, with its own draws), and mobs spawning (game_logic.py update_mobs, spawn_mobs).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "classic_state.h"
#include "xla_cumsum.h"

namespace envhive::craftax {
namespace classic {

namespace {

// `rng, _rng = jax.random.split(rng)`: advances rng, returns _rng.
Key next(Key& rng) {
  const Key sub = split_at(rng, 1);
  rng = split_at(rng, 0);
  return sub;
}

int32_t sign(int32_t v) { return (v > 0) - (v < 0); }
int32_t manhattan(Vec2 a, Vec2 b) { return std::abs(a.x - b.x) + std::abs(a.y - b.y); }

// DIRECTIONS[1:n+1][randint(key, (), 0, n)] (jax.random.choice without weights).
Vec2 random_direction(Key key, int n) {
  static constexpr Vec2 kDirs[8] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  return kDirs[randint(key, 0, 0, n)];
}

// The step toward the player along an axis of greatest distance, picked with
// jax.random.choice(arange(2), p=(|d| == max|d|) / sum|d|).
Vec2 toward_player(Key key, Vec2 from, Vec2 player) {
  const int32_t ax = std::abs(player.x - from.x), ay = std::abs(player.y - from.y);
  const int32_t max = std::max(ax, ay);
  const float total = static_cast<float>(ax + ay);
  const float p[2] = {(ax == max ? 1.0f : 0.0f) / total, (ay == max ? 1.0f : 0.0f) / total};
  std::vector<float> scratch;
  const size_t axis = choice_index(key, p, 2, scratch);
  Vec2 d{0, 0};
  if (axis == 0) d.x = sign(player.x - from.x);
  else if (axis == 1) d.y = sign(player.y - from.y);
  return d;
}

// The mob map after mob i moves from `from` to `to`: its old cell cleared if it was alive, its new
// cell set if it stays.
void move_on_mob_map(ClassicState& s, const ClassicParams& p, Vec2 from, bool alive, Vec2 to, bool stays) {
  write(s.mob_map, p, from, read(s.mob_map, p, from) && !alive);
  write(s.mob_map, p, to, read(s.mob_map, p, to) || stays);
}

Key move_zombie(Key rng, ClassicState& s, const ClassicParams& p, size_t i) {
  const Vec2 pos = s.zombies.position[i];
  const bool alive = s.zombies.mask[i];
  const int32_t cooldown = s.zombies.cooldown[i];
  const Vec2 random_pos = pos + random_direction(next(rng), 4);
  const Vec2 toward_pos = pos + toward_player(next(rng), pos, s.player);
  const float u = uniform01(next(rng), 0);  // drawn whatever the distance
  const bool close = manhattan(pos, s.player) < 10 && u < 0.75f;
  Vec2 proposed = close ? toward_pos : random_pos;
  const bool attacking = manhattan(pos, s.player) == 1 && cooldown <= 0 && alive;
  if (attacking) proposed = pos;
  const int32_t damage = s.sleeping ? 7 : 2;
  const int32_t new_cooldown = attacking ? 5 : cooldown - 1;
  const bool waking = s.sleeping && attacking;
  s.health -= damage * attacking;
  s.sleeping = s.sleeping && !attacking;
  s.achievements[kAchWakeUp] |= waking;
  const Vec2 to = can_move_to(s, p, proposed) ? proposed : pos;
  const bool stays = manhattan(pos, s.player) < p.despawn_distance;
  const Key carry = next(rng);
  move_on_mob_map(s, p, pos, alive, to, alive && stays);
  s.zombies.position[i] = to;
  s.zombies.cooldown[i] = new_cooldown;
  s.zombies.mask[i] = alive && stays;
  return carry;
}

Key move_cow(Key rng, ClassicState& s, const ClassicParams& p, size_t i) {
  const Vec2 pos = s.cows.position[i];
  const bool alive = s.cows.mask[i];
  const Vec2 proposed = pos + random_direction(next(rng), 8);  // half of the directions stay put
  const Vec2 to = can_move_to(s, p, proposed) ? proposed : pos;
  const bool stays = manhattan(pos, s.player) < p.despawn_distance;
  move_on_mob_map(s, p, pos, alive, to, alive && stays);
  s.cows.position[i] = to;
  s.cows.mask[i] = alive && stays;
  return rng;
}

Key move_skeleton(Key rng, ClassicState& s, const ClassicParams& p, size_t i) {
  const Vec2 pos = s.skeletons.position[i];
  const bool alive = s.skeletons.mask[i];
  const int32_t cooldown = s.skeletons.cooldown[i];
  const Vec2 random_pos = pos + random_direction(next(rng), 4);
  const Vec2 d = toward_player(next(rng), pos, s.player);
  const int32_t distance = manhattan(pos, s.player);
  const bool far = distance >= 10, too_close = distance <= 3;
  Vec2 proposed = far ? pos + d : random_pos;
  if (too_close) proposed = pos - d;
  if (!(uniform01(next(rng), 0) > 0.85f)) proposed = random_pos;
  bool attacking = (distance >= 4 && distance <= 5) || (too_close && !can_move_to(s, p, proposed));
  attacking = attacking && cooldown <= 0 && alive;
  int arrows_alive = 0;
  size_t slot = s.arrows.mask.size();
  for (size_t a = 0; a < s.arrows.mask.size(); ++a) {
    arrows_alive += s.arrows.mask[a];
    if (!s.arrows.mask[a] && slot == s.arrows.mask.size()) slot = a;
  }
  if (slot == s.arrows.mask.size()) slot = 0;  // argmax of all-false
  if (attacking && arrows_alive < p.max_arrows) {
    s.arrows.position[slot] = pos;
    s.arrows.mask[slot] = 1;
    s.arrow_directions[slot] = d;
  }
  if (attacking) proposed = pos;
  const int32_t new_cooldown = attacking ? 4 : cooldown - 1;
  const Vec2 to = can_move_to(s, p, proposed) ? proposed : pos;
  const bool stays = manhattan(pos, s.player) < p.despawn_distance;
  move_on_mob_map(s, p, pos, alive, to, alive && stays);
  s.skeletons.position[i] = to;
  s.skeletons.cooldown[i] = new_cooldown;
  s.skeletons.mask[i] = alive && stays;
  return rng;
}

void move_arrow(ClassicState& s, const ClassicParams& p, size_t i) {
  const bool alive = s.arrows.mask[i];
  const Vec2 proposed = s.arrows.position[i] + s.arrow_directions[i];
  const uint8_t block = read(s.map, p, proposed);
  const bool wall = is_solid(block) && block != kWater;  // arrows fly over water
  const bool flies_on = in_bounds(p, proposed) && !wall && !is_in_mob(s, p, proposed);
  const bool hit_player = proposed == s.player && alive;
  const bool breaks = (block == kFurnace || block == kCraftingTable) && alive;
  s.arrows.position[i] = proposed;
  s.arrows.mask[i] = flies_on && alive;
  s.health -= 2 * hit_player;
  s.sleeping = s.sleeping && !hit_player;
  write(s.map, p, proposed, breaks ? kPath : block);
}

// One spawn attempt of `mobs` on the cells `rule(block, distance)` allows and no mob holds (weights
// 1 / count), by jax.random.choice. The cells are only looked at when the attempt can succeed.
template <class Rule>
void spawn(Key& rng, ClassicState& s, const ClassicParams& p, Mobs& mobs, int max, float chance, int32_t health,
           Rule rule) {
  int alive = 0;
  for (auto m : mobs.mask) alive += m;
  const float u = uniform01(next(rng), 0);
  const Key where = next(rng);
  size_t slot = 0;
  for (size_t i = 0; i < mobs.mask.size(); ++i)
    if (!mobs.mask[i]) {
      slot = i;
      break;
    }
  if (alive < max && u < chance) {
    thread_local std::vector<float> weights, scratch;
    weights.assign(s.map.size(), 0.0f);
    int count = 0;
    for (int x = 0; x < p.width; ++x)
      for (int y = 0; y < p.height; ++y) {
        const size_t c = static_cast<size_t>(x) * p.height + y;
        const int32_t d = std::abs(x - s.player.x) + std::abs(y - s.player.y);
        const bool allowed = rule(s.map[c], d) && !s.mob_map[c];
        weights[c] = allowed ? 1.0f : 0.0f;
        count += allowed;
      }
    if (count > 0) {
      for (float& w : weights) w = w / static_cast<float>(count);
      const size_t index = choice_index(where, weights.data(), weights.size(), scratch);
      mobs.position[slot] = {static_cast<int32_t>(index / p.width), static_cast<int32_t>(index % p.height)};
      mobs.health[slot] = health;
      mobs.mask[slot] = 1;
    }
  }
  write(s.mob_map, p, mobs.position[slot], read(s.mob_map, p, mobs.position[slot]) || mobs.mask[slot]);
}

}  // namespace

void update_mobs(Key key, ClassicState& s, const ClassicParams& p) {
  Key rng = key;
  next(rng);
  for (size_t i = 0; i < s.zombies.mask.size(); ++i) rng = move_zombie(rng, s, p, i);
  next(rng);
  for (size_t i = 0; i < s.cows.mask.size(); ++i) rng = move_cow(rng, s, p, i);
  next(rng);
  for (size_t i = 0; i < s.skeletons.mask.size(); ++i) rng = move_skeleton(rng, s, p, i);
  for (size_t i = 0; i < s.arrows.mask.size(); ++i) move_arrow(s, p, i);
}

void spawn_mobs(Key key, ClassicState& s, const ClassicParams& p) {
  Key rng = key;
  const int32_t far = p.despawn_distance;
  spawn(rng, s, p, s.cows, p.max_cows, p.spawn_cow, p.cow_health,
        [far](uint8_t b, int32_t d) { return b == kGrass && d > 3 && d < far; });
  const float dark = 1.0f - s.light_level;
  const float zombie_chance = p.spawn_zombie_base + p.spawn_zombie_night * (dark * dark);
  spawn(rng, s, p, s.zombies, p.max_zombies, zombie_chance, p.zombie_health,
        [far](uint8_t b, int32_t d) { return (b == kGrass || b == kPath) && d > 9 && d < far; });
  spawn(rng, s, p, s.skeletons, p.max_skeletons, p.spawn_skeleton, p.skeleton_health,
        [far](uint8_t b, int32_t d) { return b == kPath && d > 9 && d < far; });
}

}  // namespace classic
}  // namespace envhive::craftax
