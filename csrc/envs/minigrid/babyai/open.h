// BabyAI's Open levels (minigrid.envs.babyai.open): open a described door (or two, in order).
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

// Open: any door of a connected 3x3 maze full of objects.
class OpenLevel final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 36}; }
    Layout layout() const { return spec().layout(); }
  };
  OpenLevel(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    place_agent_in_room();
    connect_all();
    add_distractors(-1, -1, 18, false);
    check_objs_reachable();
    std::vector<ObjId> doors;  // each door once per room it joins, as minigrid lists them
    for (int i = 0; i < shape_.num_cols; ++i)
      for (int j = 0; j < shape_.num_rows; ++j)
        for (ObjId d : room(i, j).doors)
          if (d != kNone) doors.push_back(d);
    const ObjId door = rand_elem(doors);
    instrs_.action(InstrKind::kOpen, ObjDesc(Type::kDoor, obj(door).color));
  }
};

// OpenRedDoor: the red door between two small rooms.
class OpenRedDoor final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {5, 1, 2}, .mission_length = 21}; }
    Layout layout() const { return spec().layout(); }
  };
  OpenRedDoor(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    add_door(0, 0, {.door_idx = 0, .color = static_cast<int>(Color::kRed), .locked = 0});
    place_agent_in_room(0, 0);
    instrs_.action(InstrKind::kOpen, ObjDesc(Type::kDoor, Color::kRed));
  }
};

// OpenDoor (and -Debug, -Color, -Loc): four doors around the agent, the target by color or by
// where it is; Debug fails on opening a wrong door.
class OpenDoor final : public Level {
 public:
  enum class SelectBy : uint8_t { kRandom, kColor, kLoc };
  struct Params {
    bool debug;
    SelectBy select_by;
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 36}; }
    Layout layout() const { return spec().layout(); }
  };
  OpenDoor(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    const auto colors = rand_subset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 4);
    std::vector<ObjId> doors;
    for (int i = 0; i < 4; ++i) {
      const int color = static_cast<int>(colors[static_cast<size_t>(i)]);
      doors.push_back(add_door(1, 1, {.door_idx = i, .color = color, .locked = 0}).first);
    }
    SelectBy by = p_.select_by;
    if (by == SelectBy::kRandom) by = rand_int(0, 2) == 0 ? SelectBy::kColor : SelectBy::kLoc;
    ObjDesc desc = by == SelectBy::kColor ? ObjDesc(Type::kDoor, obj(doors[0]).color)
                                          : ObjDesc(static_cast<int>(Type::kDoor), -1, kLocNames[rand_int(0, 4)]);
    place_agent_in_room(1, 1);
    instrs_.action(InstrKind::kOpen, std::move(desc), p_.debug);
  }
  Params p_;
};

// OpenTwoDoors (and OpenRedBlueDoors, -Debug): open the door on the left wall, then the one on the right.
class OpenTwoDoors final : public Level {
 public:
  struct Params {
    int first_color = -1, second_color = -1;  // -1: drawn
    bool strict = false;
    LevelSpec spec() const { return {.shape = {6, 3, 3}, .fixed_max_steps = true, .mission_length = 52}; }
    Layout layout() const { return spec().layout(); }
  };
  OpenTwoDoors(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    const auto colors = rand_subset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 2);
    const int first = p_.first_color >= 0 ? p_.first_color : static_cast<int>(colors[0]);
    const int second = p_.second_color >= 0 ? p_.second_color : static_cast<int>(colors[1]);
    const ObjId door1 = add_door(1, 1, {.door_idx = 2, .color = first, .locked = 0}).first;
    const ObjId door2 = add_door(1, 1, {.door_idx = 0, .color = second, .locked = 0}).first;
    place_agent_in_room(1, 1);
    const int a = instrs_.action(InstrKind::kOpen, ObjDesc(Type::kDoor, obj(door1).color), p_.strict);
    const int b = instrs_.action(InstrKind::kOpen, ObjDesc(Type::kDoor, obj(door2).color));
    instrs_.seq(InstrKind::kBefore, a, b);
  }
  Params p_;
};

// OpenDoorsOrder*: N doors; open one, or two in a stated order.
class OpenDoorsOrder final : public Level {
 public:
  struct Params {
    int num_doors;
    bool debug;
    LevelSpec spec() const { return {.shape = {6, 3, 3}, .fixed_max_steps = true, .mission_length = 57}; }
    Layout layout() const { return spec().layout(); }
  };
  OpenDoorsOrder(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    const std::vector<Color> all(kColorNames.begin(), kColorNames.end());
    const auto colors = rand_subset(all, static_cast<size_t>(p_.num_doors));
    std::vector<ObjId> doors;
    for (int i = 0; i < p_.num_doors; ++i)
      doors.push_back(add_door(1, 1, {.color = static_cast<int>(colors[static_cast<size_t>(i)]), .locked = 0}).first);
    place_agent_in_room(1, 1);
    const auto pair = rand_subset(doors, 2);
    const ObjDesc desc1(Type::kDoor, obj(pair[0]).color), desc2(Type::kDoor, obj(pair[1]).color);
    const int mode = rand_int(0, 3);
    if (mode == 0) {
      instrs_.action(InstrKind::kOpen, desc1, p_.debug);
      return;
    }
    const int a = instrs_.action(InstrKind::kOpen, desc1, p_.debug);
    const int b = instrs_.action(InstrKind::kOpen, desc2, p_.debug);
    instrs_.seq(mode == 1 ? InstrKind::kBefore : InstrKind::kAfter, a, b);
  }
  Params p_;
};

}  // namespace envhive::minigrid::babyai
