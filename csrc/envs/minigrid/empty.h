// MiniGrid-Empty-*: minigrid.envs.EmptyEnv. An empty room; the goal in the far corner.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class EmptyEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    bool random_start;  // agent_start_pos=None: placed at random
    Layout layout() const { return {.width = size, .height = size, .mission_length = 28}; }
  };
  EmptyEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    put_obj(add(Type::kGoal, Color::kGreen), width_ - 2, height_ - 2);
    if (!p_.random_start) {
      agent_pos_ = {1, 1};
      agent_dir_ = 0;
    } else {
      place_agent();
    }
    mission_ = "get to the green goal square";
  }
  Params p_;
};

}  // namespace envhive::minigrid
