// MiniGrid-Unlock-v0: minigrid.envs.UnlockEnv. Open the locked door with the key in the room.
#pragma once

#include "room_grid.h"

namespace envhive::minigrid {

class UnlockEnv final : public RoomGrid {
 public:
  struct Params {
    Shape shape() const { return {6, 1, 2}; }
    Layout layout() const { return {.width = shape().width(), .height = shape().height(), .mission_length = 13}; }
  };
  UnlockEnv(const Config& c, int, const Params& p) : RoomGrid(c, p.layout(), p.shape()) {}

 private:
  void gen_grid() override {
    build_rooms();
    door_ = add_door(0, 0, {.door_idx = 0, .locked = 1}).first;
    add_object(0, 0, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door_).color));
    place_agent_in_room(0, 0);
    mission_ = "open the door";
  }
  StepResult act(int action) override {
    StepResult r = base_step(action);
    if (action == kToggle && obj(door_).is_open) {
      r.reward = success_reward();
      r.terminated = true;
    }
    return r;
  }
  ObjId door_ = kNone;
};

}  // namespace envhive::minigrid
