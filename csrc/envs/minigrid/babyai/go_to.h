// BabyAI's GoTo levels (minigrid.envs.babyai.goto): go next to a described object. GoToSeq is a
// LevelGen level (level_gen.h).
#pragma once

#include <vector>

#include "level.h"

namespace envhive::minigrid::babyai {

// GoToRedBallGrey, GoToRedBall, GoToRedBallNoDists, GoToObj, GoToLocal, GoToRedBlueBall: one room.
class GoToInRoom final : public Level {
 public:
  enum class Kind : uint8_t { kRedBallGrey, kRedBall, kObj, kLocal, kRedBlueBall };
  struct Params {
    Kind kind;
    int room_size = 8, num_dists = 7;
    LevelSpec spec() const { return {.shape = {room_size, 1, 1}, .mission_length = 37}; }
    Layout layout() const { return spec().layout(); }
  };
  GoToInRoom(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    place_agent_in_room();
    ObjId target = kNone;
    switch (p_.kind) {
      case Kind::kRedBallGrey:
      case Kind::kRedBall: {
        target = add_object(0, 0, static_cast<int>(ObjKind::kBall), static_cast<int>(Color::kRed)).first;
        const auto dists = add_distractors(-1, -1, p_.num_dists, false);
        if (p_.kind == Kind::kRedBallGrey)
          for (ObjId d : dists) obj(d).color = Color::kGrey;
        check_objs_reachable();
        break;
      }
      case Kind::kObj:
        target = add_distractors(-1, -1, 1, true)[0];
        break;
      case Kind::kLocal: {
        const auto objs = add_distractors(-1, -1, p_.num_dists, false);
        check_objs_reachable();
        target = rand_elem(objs);
        break;
      }
      case Kind::kRedBlueBall: {
        for (ObjId d : add_distractors(-1, -1, p_.num_dists, false))
          if (obj(d).type == Type::kBall && (obj(d).color == Color::kBlue || obj(d).color == Color::kRed))
            throw RejectSampling("can only have one blue or red ball");
        static const std::vector<Color> kRedBlue = {Color::kRed, Color::kBlue};
        const Color color = rand_elem(kRedBlue);
        target = add_object(0, 0, static_cast<int>(ObjKind::kBall), static_cast<int>(color)).first;
        check_objs_reachable();
        break;
      }
    }
    instrs_.action(InstrKind::kGoTo, ObjDesc(obj(target).type, obj(target).color));
  }
  Params p_;
};

// GoTo (and GoToOpen, GoToObjMaze*): a maze of rooms, all connected.
class GoToMaze final : public Level {
 public:
  struct Params {
    RoomGrid::Shape shape{8, 3, 3};
    int num_dists = 18;
    bool doors_open = false;
    LevelSpec spec() const { return {.shape = shape, .mission_length = 37}; }
    Layout layout() const { return spec().layout(); }
  };
  GoToMaze(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    place_agent_in_room();
    connect_all();
    const auto objs = add_distractors(-1, -1, p_.num_dists, false);
    check_objs_reachable();
    const ObjId target = rand_elem(objs);
    instrs_.action(InstrKind::kGoTo, ObjDesc(obj(target).type, obj(target).color));
    if (p_.doors_open) open_all_doors();
  }
  Params p_;
};

// GoToImpUnlock: the target is in a locked room; its key is somewhere (add_locked_room_and_key).
class GoToImpUnlock final : public Level {
 public:
  struct Params {
    LevelSpec spec() const { return {.shape = {8, 3, 3}, .mission_length = 37}; }
    Layout layout() const { return spec().layout(); }
  };
  GoToImpUnlock(const Config& c, int, const Params& p) : Level(c, p.spec()) {}

 private:
  void gen_mission() override {
    const LockedRoom locked = add_locked_room_and_key();
    connect_all();
    for (int i = 0; i < shape_.num_cols; ++i)
      for (int j = 0; j < shape_.num_rows; ++j) add_distractors(i, j, 2, false);
    place_agent_outside(locked.room);
    check_objs_reachable();
    const Pos r = locked.room_ij;
    const ObjId target = add_distractors(r.x, r.y, 1, false)[0];
    instrs_.action(InstrKind::kGoTo, ObjDesc(obj(target).type, obj(target).color));
  }
};

// GoToDoor and GoToObjDoor: the middle room of a 3x3 maze with four doors.
class GoToDoorLevel final : public Level {
 public:
  struct Params {
    bool with_objects;  // GoToObjDoor: 8 objects too, and the target may be one of them
    LevelSpec spec() const { return {.shape = {with_objects ? 8 : 7, 3, 3}, .mission_length = 37}; }
    Layout layout() const { return spec().layout(); }
  };
  GoToDoorLevel(const Config& c, int, const Params& p) : Level(c, p.spec()), with_objects_(p.with_objects) {}

 private:
  void gen_mission() override {
    std::vector<ObjId> objs;
    if (with_objects_) {
      place_agent_in_room(1, 1);
      objs = add_distractors(1, 1, 8, false);
    }
    for (int k = 0; k < 4; ++k) objs.push_back(add_door(1, 1).first);
    if (with_objects_) {
      check_objs_reachable();
    } else {
      place_agent_in_room(1, 1);
    }
    const ObjId target = rand_elem(objs);
    instrs_.action(InstrKind::kGoTo, with_objects_ ? ObjDesc(obj(target).type, obj(target).color)
                                                   : ObjDesc(Type::kDoor, obj(target).color));
  }
  bool with_objects_;
};

}  // namespace envhive::minigrid::babyai
