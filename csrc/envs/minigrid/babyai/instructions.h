// BabyAI's instruction language (minigrid.envs.babyai.core.verifier): object descriptions, the
// action instructions (open, go to, pick up, put next to) and their sequences (and, before,
// after), as a small tree a level owns. How they match objects, read as text and are verified
// step by step is the level's (level.h), since every one of those reads the level's grid.
#pragma once

#include <cstdint>
#include <vector>

#include "../world.h"

namespace envhive::minigrid::babyai {

enum class Loc : int8_t { kNone = -1, kLeft, kRight, kFront, kBehind };  // LOC_NAMES order
inline constexpr Loc kLocNames[4] = {Loc::kLeft, Loc::kRight, Loc::kFront, Loc::kBehind};

// OBJ_TYPES and OBJ_TYPES_NOT_DOOR, in minigrid's order.
inline const std::vector<Type> kObjTypes = {Type::kBox, Type::kBall, Type::kKey, Type::kDoor};
inline const std::vector<Type> kObjTypesNotDoor = {Type::kBox, Type::kBall, Type::kKey};

// ObjDesc: a type, a color and a location relative to the agent, each optional (-1 / kNone).
struct ObjDesc {
  int type = -1;   // a Type
  int color = -1;  // a Color
  Loc loc = Loc::kNone;
  std::vector<ObjId> obj_set;  // the objects it matched (find_matching_objs)
  std::vector<Pos> obj_poss;   // and where they were

  ObjDesc() = default;
  ObjDesc(int t, int c, Loc l = Loc::kNone) : type(t), color(c), loc(l) {}
  ObjDesc(Type t, Color c) : type(static_cast<int>(t)), color(static_cast<int>(c)) {}
};

// A verifier's answer; kUnset is minigrid's initial `a_done = False`.
enum class Status : uint8_t { kUnset, kContinue, kSuccess, kFailure };

enum class InstrKind : uint8_t { kOpen, kGoTo, kPickup, kPutNext, kAnd, kBefore, kAfter };

struct Instr {
  InstrKind kind = InstrKind::kGoTo;
  bool strict = false;
  ObjDesc desc;        // open / go to / pick up: the object; put next: the one to move
  ObjDesc desc_fixed;  // put next: the one to put it next to
  int a = -1, b = -1;  // sequences: the two parts (node indices)
  // verifier state
  ObjId pre_carrying = kNone;
  Status a_done = Status::kUnset, b_done = Status::kUnset;

  bool is_action() const { return kind <= InstrKind::kPutNext; }
};

// An instruction tree; build leaves first, then the sequences over them; the last node added is
// the root.
class Instrs {
 public:
  void clear() { nodes_.clear(); }
  bool empty() const { return nodes_.empty(); }
  int action(InstrKind kind, ObjDesc desc, bool strict = false) {
    Instr i;
    i.kind = kind;
    i.strict = strict;
    i.desc = std::move(desc);
    return push(std::move(i));
  }
  int put_next(ObjDesc move, ObjDesc fixed, bool strict = false) {
    Instr i;
    i.kind = InstrKind::kPutNext;
    i.strict = strict;
    i.desc = std::move(move);
    i.desc_fixed = std::move(fixed);
    return push(std::move(i));
  }
  int seq(InstrKind kind, int a, int b) {
    Instr i;
    i.kind = kind;
    i.a = a;
    i.b = b;
    return push(std::move(i));
  }
  int root() const { return static_cast<int>(nodes_.size()) - 1; }
  Instr& operator[](int k) { return nodes_[static_cast<size_t>(k)]; }
  const Instr& operator[](int k) const { return nodes_[static_cast<size_t>(k)]; }

 private:
  int push(Instr i) {
    nodes_.push_back(std::move(i));
    return root();
  }
  std::vector<Instr> nodes_;
};

}  // namespace envhive::minigrid::babyai
