// MiniGrid-RedBlueDoors-*: minigrid.envs.RedBlueDoorEnv. Open the red door, then the blue one;
// opening the blue one first fails.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class RedBlueDoorsEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    Layout layout() const { return {.width = 2 * size, .height = size, .mission_length = 36}; }
  };
  RedBlueDoorsEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false), size_(p.size) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, 2 * size_, size_, wall());
    grid_.wall_rect(size_ / 2, 0, size_, size_, wall());
    place_agent({size_ / 2, 0}, {size_, size_});
    red_ = new_door(Color::kRed);
    grid_.set(size_ / 2, rand_int(1, size_ - 1), red_);
    blue_ = new_door(Color::kBlue);
    grid_.set(size_ / 2 + size_ - 1, rand_int(1, size_ - 1), blue_);
    mission_ = "open the red door then the blue door";
  }
  StepResult act(int action) override {
    const bool red_before = obj(red_).is_open, blue_before = obj(blue_).is_open;
    StepResult r = base_step(action);
    if (obj(blue_).is_open) {
      r.reward = red_before ? success_reward() : 0.0;
      r.terminated = true;
    } else if (obj(red_).is_open && blue_before) {
      r.reward = 0;
      r.terminated = true;
    }
    return r;
  }
  int size_;
  ObjId red_ = kNone, blue_ = kNone;
};

}  // namespace envhive::minigrid
