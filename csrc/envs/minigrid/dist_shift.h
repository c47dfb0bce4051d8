// MiniGrid-DistShift*: minigrid.envs.DistShiftEnv. Two strips of lava between the agent and the
// goal; the second strip's row differs between the two ids.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class DistShiftEnv final : public MiniGridEnv {
 public:
  struct Params {
    int strip2_row;
    Layout layout() const { return {.width = 9, .height = 7, .mission_length = 28}; }
  };
  DistShiftEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    put_obj(add(Type::kGoal, Color::kGreen), width_ - 2, 1);
    const ObjId lava = add(Type::kLava, Color::kRed);
    for (int i = 0; i < width_ - 6; ++i) {
      grid_.set(3 + i, 1, lava);
      grid_.set(3 + i, p_.strip2_row, lava);
    }
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    mission_ = "get to the green goal square";
  }
  Params p_;
};

}  // namespace envhive::minigrid
