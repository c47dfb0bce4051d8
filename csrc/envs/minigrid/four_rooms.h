// MiniGrid-FourRooms-v0: minigrid.envs.FourRoomsEnv. Four rooms joined by one gap in each inner
// wall; the agent and the goal anywhere.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class FourRoomsEnv final : public MiniGridEnv {
 public:
  struct Params {
    Layout layout() const { return {.width = 19, .height = 19, .mission_length = 14}; }
  };
  FourRoomsEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());  // minigrid: horz_wall x 2, vert_wall x 2
    const int room_w = width_ / 2, room_h = height_ / 2;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const int x_l = i * room_w, y_t = j * room_h, x_r = x_l + room_w, y_b = y_t + room_h;
        if (i + 1 < 2) {
          grid_.vert_wall(x_r, y_t, room_h, wall());
          grid_.set(x_r, rand_int(y_t + 1, y_b), kNone);
        }
        if (j + 1 < 2) {
          grid_.horz_wall(x_l, y_b, room_w, wall());
          grid_.set(rand_int(x_l + 1, x_r), y_b, kNone);
        }
      }
    place_agent();
    place_obj(add(Type::kGoal, Color::kGreen));
    mission_ = "reach the goal";
  }
};

}  // namespace envhive::minigrid
