// BabyAI's generated levels (minigrid.envs.babyai.core.levelgen.LevelGen): a maze of rooms, maybe
// a locked room with its key elsewhere, distractors, and a random instruction tree over the
// objects: GoToSeq, PickupLoc, Synth*, MiniBossLevel, BossLevel, BossLevelNoUnlock.
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

enum class ActionKind : uint8_t { kGoTo, kPickup, kOpen, kPutNext };
enum class InstrShape : uint8_t { kAction, kAnd, kSeq };

class LevelGen final : public Level {
 public:
  struct Params {
    RoomGrid::Shape shape{8, 3, 3};
    int num_dists = 18;
    double locked_room_prob = 0.5;
    bool locations = true, unblocking = true, implicit_unlock = true;
    std::vector<ActionKind> action_kinds{ActionKind::kGoTo, ActionKind::kPickup, ActionKind::kOpen, ActionKind::kPutNext};
    std::vector<InstrShape> instr_kinds{InstrShape::kAction, InstrShape::kAnd, InstrShape::kSeq};
    Layout layout() const { return spec().layout(); }
    LevelSpec spec() const {
      const bool seq = std::find(instr_kinds.begin(), instr_kinds.end(), InstrShape::kSeq) != instr_kinds.end();
      const bool both = seq || std::find(instr_kinds.begin(), instr_kinds.end(), InstrShape::kAnd) != instr_kinds.end();
      // The longest description is "a purple object in front of you" (31): put-next 75, and 155, seq 321.
      return {.shape = shape, .mission_length = seq ? 321 : both ? 155 : 75};
    }
  };
  LevelGen(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  bool unblocking() const override { return p_.unblocking; }

  void gen_mission() override {
    locked_room_ = -1;
    if (rand_float(0, 1) < p_.locked_room_prob) add_locked_room();
    connect_all();
    add_distractors(-1, -1, p_.num_dists, false);
    place_agent_outside(locked_room_);
    if (!p_.unblocking) check_objs_reachable();
    rand_instr(p_.action_kinds, p_.instr_kinds);
  }

  void add_locked_room() {
    ObjId door;
    for (;;) {
      const int i = rand_int(0, shape_.num_cols);
      const int j = rand_int(0, shape_.num_rows);
      const int door_idx = rand_int(0, 4);
      locked_room_ = j * shape_.num_cols + i;
      if (room(i, j).neighbors[static_cast<size_t>(door_idx)] < 0) continue;
      door = add_door(i, j, {.door_idx = door_idx, .locked = 1}).first;
      break;
    }
    for (;;) {
      const int i = rand_int(0, shape_.num_cols);
      const int j = rand_int(0, shape_.num_rows);
      if (j * shape_.num_cols + i == locked_room_) continue;
      add_object(i, j, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
      break;
    }
  }

  ObjDesc rand_obj(const std::vector<Type>& types = kObjTypes, int max_tries = 100) {
    static const std::vector<int> kColorsOrNone = {-1, 2, 1, 5, 3, 0, 4};  // [None, *COLOR_NAMES]
    int num_tries = 0;
    for (;;) {
      if (num_tries > max_tries) throw RecursionError("failed to find suitable object");
      ++num_tries;
      const int color = rand_elem(kColorsOrNone);
      const Type type = rand_elem(types);
      Loc loc = Loc::kNone;
      if (p_.locations && rand_bool()) loc = kLocNames[rand_int(0, 4)];
      ObjDesc desc(static_cast<int>(type), color, loc);
      find_matching(desc);
      if (desc.obj_set.empty()) continue;
      if (!p_.implicit_unlock && locked_room_ >= 0) {
        const Room& locked = rooms_[static_cast<size_t>(locked_room_)];
        if (std::all_of(desc.obj_poss.begin(), desc.obj_poss.end(), [&](Pos p) { return locked.pos_inside(p); })) continue;
      }
      return desc;
    }
  }

  int rand_instr(const std::vector<ActionKind>& action_kinds, const std::vector<InstrShape>& instr_kinds) {
    const InstrShape kind = rand_elem(instr_kinds);
    if (kind == InstrShape::kAction) {
      switch (rand_elem(action_kinds)) {
        case ActionKind::kGoTo: return instrs_.action(InstrKind::kGoTo, rand_obj());
        case ActionKind::kPickup: return instrs_.action(InstrKind::kPickup, rand_obj(kObjTypesNotDoor));
        case ActionKind::kOpen: return instrs_.action(InstrKind::kOpen, rand_obj({Type::kDoor}));
        case ActionKind::kPutNext: {
          ObjDesc move = rand_obj(kObjTypesNotDoor);
          return instrs_.put_next(std::move(move), rand_obj());
        }
      }
    }
    if (kind == InstrShape::kAnd) {
      const int a = rand_instr(action_kinds, {InstrShape::kAction});
      const int b = rand_instr(action_kinds, {InstrShape::kAction});
      return instrs_.seq(InstrKind::kAnd, a, b);
    }
    const int a = rand_instr(action_kinds, {InstrShape::kAction, InstrShape::kAnd});
    const int b = rand_instr(action_kinds, {InstrShape::kAction, InstrShape::kAnd});
    return instrs_.seq(rand_int(0, 2) == 0 ? InstrKind::kBefore : InstrKind::kAfter, a, b);
  }

  Params p_;
  int locked_room_ = -1;  // a room index, -1: none
};

}  // namespace envhive::minigrid::babyai
