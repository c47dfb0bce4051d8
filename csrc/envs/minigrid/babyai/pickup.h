// BabyAI's Pickup levels (minigrid.envs.babyai.pickup): pick up a described object. PickupLoc is
// a LevelGen level (level_gen.h).
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

// Pickup and UnblockPickup: a connected 3x3 maze full of objects (UnblockPickup: some of them
// blocked off by others).
class PickupLevel final : public Level {
 public:
  struct Params {
    bool unblock;
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 39}; }
    Layout layout() const { return spec().layout(); }
  };
  PickupLevel(const Config& c, int, const Params& p) : Level(c, p.spec()), unblock_(p.unblock) {}

 private:
  void gen_mission() override {
    place_agent_in_room();
    connect_all();
    const auto objs = add_distractors(-1, -1, unblock_ ? 20 : 18, false);
    if (!unblock_) {
      check_objs_reachable();
    } else if (check_objs_reachable(false)) {
      throw RejectSampling("all objects reachable");
    }
    const ObjId target = rand_elem(objs);
    instrs_.action(InstrKind::kPickup, ObjDesc(obj(target).type, obj(target).color));
  }
  bool unblock_;
};

// PickupDist (and -Debug): one room; the target named by type, color or both (Debug fails on
// picking up anything else).
class PickupDist final : public Level {
 public:
  struct Params {
    bool debug;
    LevelSpec spec() const { return {.shape = {7, 1, 1}, .mission_length = 30}; }
    Layout layout() const { return spec().layout(); }
  };
  PickupDist(const Config& c, int, const Params& p) : Level(c, p.spec()), debug_(p.debug) {}

 private:
  void gen_mission() override {
    const auto objs = add_distractors(-1, -1, 5, true);
    place_agent_in_room(0, 0);
    const ObjId target = rand_elem(objs);
    int type = static_cast<int>(obj(target).type), color = static_cast<int>(obj(target).color);
    const int select_by = rand_int(0, 3);  // ['type', 'color', 'both']
    if (select_by == 1) type = -1;
    if (select_by == 0) color = -1;
    instrs_.action(InstrKind::kPickup, ObjDesc(type, color), debug_);
  }
  bool debug_;
};

// PickupAbove: the object is in the room above the agent's.
class PickupAbove final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {6, 3, 3}, .fixed_max_steps = true, .mission_length = 39}; }
    Layout layout() const { return spec().layout(); }
  };
  PickupAbove(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const ObjId target = add_object(1, 0).first;
    add_door(1, 1, {.door_idx = 3, .locked = 0});
    place_agent_in_room(1, 1);
    connect_all();
    instrs_.action(InstrKind::kPickup, ObjDesc(obj(target).type, obj(target).color));
  }
};

}  // namespace envhive::minigrid::babyai
