// MiniGrid-DoorKey-*: minigrid.envs.DoorKeyEnv. A key on the agent's side of a wall opens the
// locked door to the goal's side.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class DoorKeyEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 53}; }
  };
  DoorKeyEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    put_obj(add(Type::kGoal, Color::kGreen), width_ - 2, height_ - 2);
    const int split = rand_int(2, width_ - 2);
    grid_.vert_wall(split, 0, -1, wall());
    place_agent({0, 0}, {split, height_});
    const int door = rand_int(1, height_ - 2);
    put_obj(new_door(Color::kYellow, false, true), split, door);
    place_obj(add(Type::kKey, Color::kYellow), {0, 0}, {split, height_});
    mission_ = "use the key to open the door and then get to the goal";
  }
};

}  // namespace envhive::minigrid
