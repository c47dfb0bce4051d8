#include "rules.h"

namespace envhive::crafter {

const std::vector<CollectRule>& collect_rules() {
  static const std::vector<CollectRule> rules = {
      {kTree, {}, kWood, kCollectWood, 1.0, kGrass},
      {kStone, {{kWoodPickaxe, 1}}, kStoneItem, kCollectStone, 1.0, kPath},
      {kCoal, {{kWoodPickaxe, 1}}, kCoalItem, kCollectCoal, 1.0, kPath},
      {kIron, {{kStonePickaxe, 1}}, kIronItem, kCollectIron, 1.0, kPath},
      {kDiamond, {{kIronPickaxe, 1}}, kDiamondItem, kCollectDiamond, 1.0, kPath},
      {kWater, {}, kDrink, kCollectDrink, 1.0, kWater},
      {kGrass, {}, kSapling, kCollectSapling, 0.1, kGrass},
  };
  return rules;
}

const std::vector<PlaceRule>& place_rules() {
  static const std::vector<PlaceRule> rules = {
      {"stone", {kStoneItem, 1}, {kGrass, kSand, kPath, kWater, kLava}, true, kStone, kPlaceStone},
      {"table", {kWood, 2}, {kGrass, kSand, kPath}, true, kTable, kPlaceTable},
      {"furnace", {kStoneItem, 4}, {kGrass, kSand, kPath}, true, kFurnace, kPlaceFurnace},
      {"plant", {kSapling, 1}, {kGrass}, false, kNoMaterial, kPlacePlant},
  };
  return rules;
}

const std::vector<MakeRule>& make_rules() {
  static const std::vector<MakeRule> rules = {
      {"wood_pickaxe", {{kWood, 1}}, false, kWoodPickaxe, kMakeWoodPickaxe},
      {"stone_pickaxe", {{kWood, 1}, {kStoneItem, 1}}, false, kStonePickaxe, kMakeStonePickaxe},
      {"iron_pickaxe", {{kWood, 1}, {kCoalItem, 1}, {kIronItem, 1}}, true, kIronPickaxe, kMakeIronPickaxe},
      {"wood_sword", {{kWood, 1}}, false, kWoodSword, kMakeWoodSword},
      {"stone_sword", {{kWood, 1}, {kStoneItem, 1}}, false, kStoneSword, kMakeStoneSword},
      {"iron_sword", {{kWood, 1}, {kCoalItem, 1}, {kIronItem, 1}}, true, kIronSword, kMakeIronSword},
  };
  return rules;
}

std::vector<std::pair<std::string, double>> rule_numbers() {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& r : place_rules())
    out.push_back({std::string("place.") + r.name + ".uses." + item_name(r.uses.item), r.uses.amount});
  for (const auto& r : make_rules())
    for (const auto& c : r.uses) out.push_back({std::string("make.") + r.name + ".uses." + item_name(c.item), c.amount});
  out.push_back({"collect.grass.probability", 0.1});
  out.push_back({"items.health.max", 9});
  return out;
}

}  // namespace envhive::crafter
