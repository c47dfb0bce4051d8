// MiniGrid-UnlockPickup-v0 and MiniGrid-BlockedUnlockPickup-v0: minigrid.envs.UnlockPickupEnv and
// BlockedUnlockPickupEnv. Unlock the door (a ball blocks it in the blocked variant) and pick up
// the box behind it.
#pragma once

#include "room_grid.h"

namespace envhive::minigrid {

class UnlockPickupEnv final : public RoomGrid {
 public:
  struct Params {
    bool blocked;
    Shape shape() const { return {6, 1, 2}; }
    Layout layout() const { return {.width = shape().width(), .height = shape().height(), .mission_length = 24}; }
  };
  UnlockPickupEnv(const Config& c, int, const Params& p) : RoomGrid(c, p.layout(), p.shape()), blocked_(p.blocked) {}

 private:
  void gen_grid() override {
    build_rooms();
    target_ = add_object(1, 0, static_cast<int>(ObjKind::kBox)).first;
    const auto [door, pos] = add_door(0, 0, {.door_idx = 0, .locked = 1});
    if (blocked_) {
      const Color color = rand_color();
      grid_.set(pos.x - 1, pos.y, add(Type::kBall, color));
    }
    add_object(0, 0, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
    place_agent_in_room(0, 0);
    mission_ = "pick up the " + std::string(name(obj(target_).color)) + " box";
  }
  StepResult act(int action) override { return pickup_step(action, target_); }
  bool blocked_;
  ObjId target_ = kNone;
};

}  // namespace envhive::minigrid
