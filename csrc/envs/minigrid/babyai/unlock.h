// BabyAI's Unlock levels (minigrid.envs.babyai.unlock): open a locked door, or get past one to
// pick something up.
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

// Unlock: a locked room somewhere in a 3x3 maze, its key somewhere (add_locked_room_and_key).
class UnlockLevel final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 24}; }
    Layout layout() const { return spec().layout(); }
  };
  UnlockLevel(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const LockedRoom locked = add_locked_room_and_key();
    const Color key_color = obj(locked.door).color;
    if (rand_bool()) {
      std::vector<Color> colors;
      for (Color c : kColorNames)
        if (c != key_color) colors.push_back(c);
      connect_all(colors);
    } else {
      connect_all();
    }
    for (int i = 0; i < shape_.num_cols; ++i)
      for (int j = 0; j < shape_.num_rows; ++j) add_distractors(i, j, 3, false);
    place_agent_outside(locked.room);
    check_objs_reachable();
    instrs_.action(InstrKind::kOpen, ObjDesc(Type::kDoor, key_color));
  }
};

// UnlockLocal (and -Dist) and KeyInBox: the locked door of the agent's room, its key in the room
// (KeyInBox: inside a box).
class UnlockLocal final : public Level {
 public:
  struct Params {
    bool distractors, key_in_box;
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 13}; }
    Layout layout() const { return spec().layout(); }
  };
  UnlockLocal(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    const ObjId door = add_door(1, 1, {.locked = 1}).first;
    if (p_.key_in_box) {
      const ObjId key = add(Type::kKey, obj(door).color);
      const ObjId box = add(Type::kBox, rand_color());
      obj(box).contains = key;
      place_in_room(1, 1, box);
    } else {
      add_object(1, 1, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
      if (p_.distractors) add_distractors(1, 1, 3, true);
    }
    place_agent_in_room(1, 1);
    instrs_.action(InstrKind::kOpen, ObjDesc(static_cast<int>(Type::kDoor), -1));
  }
  Params p_;
};

// UnlockPickup (and -Dist), BlockedUnlockPickup: the box behind a locked door (blocked by a
// ball); UnlockPickup's time budget is per episode (minigrid's `if max is None` never holds).
class UnlockPickupLevel final : public Level {
 public:
  struct Params {
    bool distractors, blocked;
    LevelSpec spec() const { return {.shape = {6, 1, 2}, .fixed_max_steps = blocked, .mission_length = 39}; }
    Layout layout() const { return spec().layout(); }
  };
  UnlockPickupLevel(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    const ObjId target = add_object(1, 0, static_cast<int>(ObjKind::kBox)).first;
    const auto [door, pos] = add_door(0, 0, {.door_idx = 0, .locked = 1});
    if (p_.blocked) {
      const Color color = rand_color();
      grid_.set(pos.x - 1, pos.y, add(Type::kBall, color));
    }
    add_object(0, 0, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
    if (p_.distractors) add_distractors(-1, -1, 4, true);
    place_agent_in_room(0, 0);
    instrs_.action(InstrKind::kPickup, p_.blocked ? ObjDesc(static_cast<int>(Type::kBox), -1)
                                                  : ObjDesc(obj(target).type, obj(target).color));
  }
  Params p_;
};

// UnlockToUnlock: unlock one door with a key from behind another.
class UnlockToUnlock final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {6, 1, 3}, .fixed_max_steps = true, .mission_length = 20}; }
    Layout layout() const { return spec().layout(); }
  };
  UnlockToUnlock(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const auto colors = rand_subset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 2);
    add_door(0, 0, {.door_idx = 0, .color = static_cast<int>(colors[0]), .locked = 1});
    add_object(2, 0, static_cast<int>(ObjKind::kKey), static_cast<int>(colors[0]));
    add_door(1, 0, {.door_idx = 0, .color = static_cast<int>(colors[1]), .locked = 1});
    add_object(1, 0, static_cast<int>(ObjKind::kKey), static_cast<int>(colors[1]));
    const ObjId target = add_object(0, 0, static_cast<int>(ObjKind::kBall)).first;
    place_agent_in_room(1, 0);
    instrs_.action(InstrKind::kPickup, ObjDesc(static_cast<int>(obj(target).type), -1));
  }
};

}  // namespace envhive::minigrid::babyai
