// MiniGrid-KeyCorridorS*R*: minigrid.envs.KeyCorridorEnv. A corridor of rooms; the ball to pick
// up waits behind a locked door, its key in a room on the other side.
#pragma once

#include "room_grid.h"

namespace envhive::minigrid {

class KeyCorridorEnv final : public RoomGrid {
 public:
  struct Params {
    int room_size, num_rows;
    Shape shape() const { return {room_size, num_rows, 3}; }
    Layout layout() const { return {.width = shape().width(), .height = shape().height(), .mission_length = 24}; }
  };
  KeyCorridorEnv(const Config& c, int, const Params& p) : RoomGrid(c, p.layout(), p.shape()) {}

 private:
  void gen_grid() override {
    build_rooms();
    for (int j = 1; j < shape_.num_rows; ++j) remove_wall(1, j, 3);
    const int room_idx = rand_int(0, shape_.num_rows);
    const ObjId door = add_door(2, room_idx, {.door_idx = 2, .locked = 1}).first;
    target_ = add_object(2, room_idx, static_cast<int>(ObjKind::kBall)).first;
    const int key_row = rand_int(0, shape_.num_rows);
    add_object(0, key_row, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
    place_agent_in_room(1, shape_.num_rows / 2);
    connect_all();
    mission_ = "pick up the " + std::string(name(obj(target_).color)) + " ball";
  }
  StepResult act(int action) override { return pickup_step(action, target_); }
  ObjId target_ = kNone;
};

}  // namespace envhive::minigrid
