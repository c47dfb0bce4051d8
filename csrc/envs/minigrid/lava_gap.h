// MiniGrid-LavaGapS*: minigrid.envs.LavaGapEnv. A wall of lava with one gap between the agent and
// the goal.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class LavaGapEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 47}; }
  };
  LavaGapEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    put_obj(add(Type::kGoal, Color::kGreen), width_ - 2, height_ - 2);
    const int gap_x = rand_int(2, width_ - 2);
    const int gap_y = rand_int(1, height_ - 1);
    grid_.vert_wall(gap_x, 1, height_ - 2, add(Type::kLava, Color::kRed));
    grid_.set(gap_x, gap_y, kNone);
    mission_ = "avoid the lava and get to the green goal square";
  }
};

}  // namespace envhive::minigrid
