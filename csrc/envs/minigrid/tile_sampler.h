// MiniGridTiles-v0 (hidden): a 10x8 grid holding every object minigrid draws, in every color and
// door state, so tests compare each tile minigrid can draw (highlighted or not, under the agent
// in each direction) with minigrid's own Grid.render. Not an RL task: the agent only turns.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class TileSamplerEnv final : public MiniGridEnv {
 public:
  struct Params {
    Layout layout() const { return {.width = 10, .height = 8, .num_actions = 7, .mission_length = 1}; }
  };
  TileSamplerEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true) {}

 private:
  // Per color (COLOR_TO_IDX order): wall, floor, goal, key, ball, box, then a door open, closed
  // and locked; then lava. Cell k is (k % 10, k / 10); the agent stands below them, facing left.
  void gen_grid() override {
    new_grid(width_, height_);
    int k = 0;
    auto put = [&](ObjId id) {
      grid_.set(k % width_, k / width_, id);
      ++k;
    };
    for (int ci = 0; ci < kNumColors; ++ci) {
      const Color c = static_cast<Color>(ci);
      for (Type t : {Type::kWall, Type::kFloor, Type::kGoal, Type::kKey, Type::kBall, Type::kBox}) put(add(t, c));
      put(new_door(c, true, false));
      put(new_door(c, false, false));
      put(new_door(c, false, true));
    }
    put(add(Type::kLava, Color::kRed));
    agent_pos_ = {width_ - 2, height_ - 2};
    agent_dir_ = 2;
    mission_.clear();
  }
};

}  // namespace envhive::minigrid
