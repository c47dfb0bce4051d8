// BabyAI's other levels (minigrid.envs.babyai.other): ActionObjDoor, FindObj, KeyCorridor,
// OneRoom, MoveTwoAcross.
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

// ActionObjDoor: go to, open or pick up one of the objects and doors around the agent.
class ActionObjDoor final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {7, 3, 3}, .mission_length = 39}; }
    Layout layout() const { return spec().layout(); }
  };
  ActionObjDoor(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    auto objs = add_distractors(1, 1, 5, true);
    for (int k = 0; k < 4; ++k) objs.push_back(add_door(1, 1, {.locked = 0}).first);
    place_agent_in_room(1, 1);
    const WorldObj& target = obj(rand_elem(objs));
    ObjDesc desc(target.type, target.color);
    if (target.type == Type::kDoor)
      instrs_.action(rand_bool() ? InstrKind::kGoTo : InstrKind::kOpen, std::move(desc));
    else
      instrs_.action(rand_bool() ? InstrKind::kGoTo : InstrKind::kPickup, std::move(desc));
  }
};

// FindObjS*: one object somewhere in a 3x3 maze.
class FindObj final : public Level {
 public:
  struct Params {
    int room_size;
    LevelSpec spec() const { return {.shape = {room_size, 3, 3}, .fixed_max_steps = true, .mission_length = 16}; }
    Layout layout() const { return spec().layout(); }
  };
  FindObj(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const int i = rand_int(0, shape_.num_rows);  // minigrid swaps rows and columns; the maze is square
    const int j = rand_int(0, shape_.num_cols);
    const ObjId target = add_object(i, j).first;
    place_agent_in_room(1, 1);
    connect_all();
    instrs_.action(InstrKind::kPickup, ObjDesc(static_cast<int>(obj(target).type), -1));
  }
};

// KeyCorridor*: minigrid's MiniGrid-KeyCorridor as a BabyAI level.
class KeyCorridorLevel final : public Level {
 public:
  struct Params {
    int room_size, num_rows;
    LevelSpec spec() const { return {.shape = {room_size, num_rows, 3}, .fixed_max_steps = true, .mission_length = 16}; }
    Layout layout() const { return spec().layout(); }
  };
  KeyCorridorLevel(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    for (int j = 1; j < shape_.num_rows; ++j) remove_wall(1, j, 3);
    const int room_idx = rand_int(0, shape_.num_rows);
    const ObjId door = add_door(2, room_idx, {.door_idx = 2, .locked = 1}).first;
    const ObjId target = add_object(2, room_idx, static_cast<int>(ObjKind::kBall)).first;
    const int key_row = rand_int(0, shape_.num_rows);
    add_object(0, key_row, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
    place_agent_in_room(1, shape_.num_rows / 2);
    connect_all();
    instrs_.action(InstrKind::kPickup, ObjDesc(static_cast<int>(obj(target).type), -1));
  }
};

// OneRoomS*: pick up the ball in one room.
class OneRoom final : public Level {
 public:
  struct Params {
    int room_size;
    LevelSpec spec() const { return {.shape = {room_size, 1, 1}, .mission_length = 16}; }
    Layout layout() const { return spec().layout(); }
  };
  OneRoom(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const ObjId target = add_object(0, 0, static_cast<int>(ObjKind::kBall)).first;
    place_agent_in_room();
    instrs_.action(InstrKind::kPickup, ObjDesc(static_cast<int>(obj(target).type), -1));
  }
};

// MoveTwoAcrossS*N*: two put-next-to across two joined rooms, one after the other.
class MoveTwoAcross final : public Level {
 public:
  struct Params {
    int room_size, objs_per_room;
    LevelSpec spec() const { return {.shape = {room_size, 1, 2}, .fixed_max_steps = true, .mission_length = 157}; }
    Layout layout() const { return spec().layout(); }
  };
  MoveTwoAcross(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    place_agent_in_room(0, 0);
    auto left = add_distractors(0, 0, p_.objs_per_room, true);
    auto right = add_distractors(1, 0, p_.objs_per_room, true);
    remove_wall(0, 0, 0);
    left = rand_subset(left, 2);
    right = rand_subset(right, 2);
    auto desc = [this](ObjId id) { return ObjDesc(obj(id).type, obj(id).color); };
    const int first = instrs_.put_next(desc(left[0]), desc(right[0]));
    const int second = instrs_.put_next(desc(right[1]), desc(left[1]));
    instrs_.seq(InstrKind::kBefore, first, second);
  }
  Params p_;
};

}  // namespace envhive::minigrid::babyai
