// crafter's world: the material map, the objects (player and creatures) with the map of which
// cell holds which, and the chunks creatures are balanced in. Positions are (x, y) with x the
// first array axis, as crafter indexes its maps.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "../../core/random_state.h"

namespace envhive::crafter {

// crafter's material ids (World._mat_ids: None first, then data.yaml's materials in order).
enum Material : uint8_t {
  kNoMaterial = 0, kWater, kGrass, kStone, kPath, kSand, kTree, kLava, kCoal, kIron, kDiamond, kTable, kFurnace,
};
inline constexpr int kNumMaterials = 13;

enum class Kind : uint8_t { kPlayer, kCow, kZombie, kSkeleton, kArrow, kPlant };

// data.yaml's inventory items, in their order (the order the item view draws them).
enum Item : int {
  kHealth, kFood, kDrink, kEnergy, kSapling, kWood, kStoneItem, kCoalItem, kIronItem, kDiamondItem,
  kWoodPickaxe, kStonePickaxe, kIronPickaxe, kWoodSword, kStoneSword, kIronSword,
};
inline constexpr int kNumItems = 16;

// data.yaml's achievements, in their (alphabetical) order.
enum Achievement : int {
  kCollectCoal, kCollectDiamond, kCollectDrink, kCollectIron, kCollectSapling, kCollectStone, kCollectWood,
  kDefeatSkeleton, kDefeatZombie, kEatCow, kEatPlant, kMakeIronPickaxe, kMakeIronSword, kMakeStonePickaxe,
  kMakeStoneSword, kMakeWoodPickaxe, kMakeWoodSword, kPlaceFurnace, kPlacePlant, kPlaceStone, kPlaceTable,
  kWakeUp,
};
inline constexpr int kNumAchievements = 22;

struct Pos {
  int x = 0, y = 0;
  Pos operator+(Pos o) const { return {x + o.x, y + o.y}; }
  Pos operator-(Pos o) const { return {x - o.x, y - o.y}; }
  bool operator==(const Pos&) const = default;
};

// A creature, arrow or plant (the player's own state is in Player). `removed` objects keep
// running the rest of the update that removed them, as crafter's do.
struct Object {
  Kind kind = Kind::kCow;
  Pos pos;
  int health = 0;
  bool removed = false;
  int cooldown = 0;  // zombie
  int reload = 0;    // skeleton
  Pos facing;        // arrow
  int grown = 0;     // plant
};

struct Player {
  Pos facing{0, 1};
  std::array<int, kNumItems> inventory{};
  std::array<int, kNumAchievements> achievements{};
  int action = 0;
  bool sleeping = false;
  int last_health = 0;  // for waking up when hurt
  double hunger = 0, thirst = 0, fatigue = 0, recover = 0;
};

// A chunk of the map and the objects in it. crafter keeps them in a Python set, whose order
// follows the objects' memory addresses (it differs between processes); envhive's order is the
// order objects entered the chunk, and the lockstep tests give the reference that order.
struct Chunk {
  int xmin, xmax, ymin, ymax;
  std::vector<uint32_t> members;
};

class World {
 public:
  static constexpr int kChunkSize = 12;

  World(int width, int height);
  void reset(uint32_t seed);

  int width() const { return width_; }
  int height() const { return height_; }
  bool inside(Pos p) const { return p.x >= 0 && p.x < width_ && p.y >= 0 && p.y < height_; }
  // The material at p (kNoMaterial outside the map, where crafter's world[pos] is None).
  Material material(Pos p) const { return inside(p) ? static_cast<Material>(materials_[index(p)]) : kNoMaterial; }
  void set_material(Pos p, Material m) { materials_[index(p)] = m; }
  // The index of the object at p (0: none, or outside the map).
  uint32_t object_at(Pos p) const { return inside(p) ? object_map_[index(p)] : 0; }
  // Cells of material m in chunk c.
  int count_in(const Chunk& c, Material m) const;

  uint32_t add(const Object& obj);
  void remove(uint32_t id);
  void move(uint32_t id, Pos to);

  Object& object(uint32_t id) { return objects_[id]; }
  const Object& object(uint32_t id) const { return objects_[id]; }
  // Ids of the objects in the world, in crafter's list order (their insertion order).
  void live_objects(std::vector<uint32_t>& out) const;
  // One past the largest object id ever given out this episode.
  uint32_t objects_count() const { return static_cast<uint32_t>(objects_.size()); }
  std::vector<Chunk>& chunks() { return chunks_; }
  const std::vector<uint8_t>& material_map() const { return materials_; }
  const std::vector<uint32_t>& object_map() const { return object_map_; }

  RandomState random;
  double daylight = 0.0;

 private:
  size_t index(Pos p) const { return static_cast<size_t>(p.x) * height_ + p.y; }
  size_t chunk_of(Pos p);  // made on first use, as crafter's defaultdict does
  void leave_chunk(size_t chunk, uint32_t id);

  int width_, height_;
  int chunks_x_, chunks_y_;
  std::vector<uint8_t> materials_;
  std::vector<uint32_t> object_map_;
  std::vector<Object> objects_;           // index 0 is crafter's None placeholder
  std::vector<int32_t> chunk_lookup_;     // chunk grid cell -> index into chunks_, -1 when unmade
  std::vector<Chunk> chunks_;             // in the order they were made (crafter's dict order)
};

// Manhattan distance (crafter's Object.distance).
inline int distance(Pos a, Pos b) { return (a.x > b.x ? a.x - b.x : b.x - a.x) + (a.y > b.y ? a.y - b.y : b.y - a.y); }

}  // namespace envhive::crafter
