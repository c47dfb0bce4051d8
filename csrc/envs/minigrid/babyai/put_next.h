// BabyAI's PutNext levels (minigrid.envs.babyai.putnext): put one described object next to another.
#pragma once

#include "level.h"

namespace envhive::minigrid::babyai {

// PutNextLocal*: one room of distinct objects.
class PutNextLocal final : public Level {
 public:
  struct Params {
    int room_size = 8, num_objs = 8;
    LevelSpec spec() const { return {.shape = {room_size, 1, 1}, .mission_length = 75}; }
    Layout layout() const { return spec().layout(); }
  };
  PutNextLocal(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    place_agent_in_room();
    const auto objs = add_distractors(-1, -1, p_.num_objs, true);
    check_objs_reachable();
    const auto pair = rand_subset(objs, 2);
    instrs_.put_next(ObjDesc(obj(pair[0]).type, obj(pair[0]).color), ObjDesc(obj(pair[1]).type, obj(pair[1]).color));
  }
  Params p_;
};

// PutNextS*N* (and -Carrying): two rooms joined into one; move an object of one side next to one
// of the other. Carrying: the agent starts holding it (after reset's observation was taken).
class PutNext final : public Level {
 public:
  struct Params {
    int room_size, objs_per_room;
    bool start_carrying;
    LevelSpec spec() const { return {.shape = {room_size, 1, 2}, .fixed_max_steps = true, .mission_length = 75}; }
    Layout layout() const { return spec().layout(); }
  };
  PutNext(const Config& c, int, const Params& p) : Level(c, p.spec()), p_(p) {}

 private:
  void gen_mission() override {
    place_agent_in_room(0, 0);
    const auto left = add_distractors(0, 0, p_.objs_per_room, true);
    const auto right = add_distractors(1, 0, p_.objs_per_room, true);
    remove_wall(0, 0, 0);
    ObjId a = rand_elem(left), b = rand_elem(right);
    if (rand_bool()) std::swap(a, b);
    obj_a_ = a;
    instrs_.put_next(ObjDesc(obj(a).type, obj(a).color), ObjDesc(obj(b).type, obj(b).color));
  }
  void after_reset() override {
    Level::after_reset();
    if (!p_.start_carrying) return;
    hold_reset_image();
    grid_.set(obj(obj_a_).init_pos, kNone);
    carrying_ = obj_a_;
  }
  Params p_;
  ObjId obj_a_ = kNone;
};

}  // namespace envhive::minigrid::babyai
