// crafter's data.yaml rules (collect, place, make), as tables indexed by envhive's enums. The
// family's binding checks them against the installed crafter's data.yaml at import.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "world.h"

namespace envhive::crafter {

struct Cost {
  Item item;
  int amount;
};

struct CollectRule {
  Material material;
  std::vector<Cost> require;
  Item receive;
  Achievement achievement;
  double probability;
  Material leaves;
};

struct PlaceRule {
  const char* name;
  Cost uses;
  std::vector<Material> where;
  bool is_material;  // else an object (a plant)
  Material material;
  Achievement achievement;
};

struct MakeRule {
  const char* name;
  std::vector<Cost> uses;
  bool needs_furnace;  // every make needs a table nearby
  Item gives;
  Achievement achievement;
};

const std::vector<CollectRule>& collect_rules();
const std::vector<PlaceRule>& place_rules();   // stone, table, furnace, plant (the place_* actions)
const std::vector<MakeRule>& make_rules();     // the make_* actions, in order

// (dotted path into crafter.constants, value) for every number above: the binding compares them.
std::vector<std::pair<std::string, double>> rule_numbers();

inline const char* item_name(int item) {
  static const char* const kNames[kNumItems] = {
      "health", "food", "drink", "energy", "sapling", "wood", "stone", "coal", "iron", "diamond",
      "wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"};
  return kNames[item];
}

}  // namespace envhive::crafter
