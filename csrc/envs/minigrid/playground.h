// MiniGrid-Playground-v0: minigrid.envs.PlaygroundEnv. Nine rooms with doors and twelve random
// objects; no mission, no reward (a sandbox).
#pragma once

#include "room_grid.h"

namespace envhive::minigrid {

class PlaygroundEnv final : public MiniGridEnv {
 public:
  struct Params {
    Layout layout() const { return {.width = 19, .height = 19, .mission_length = 1}; }
  };
  PlaygroundEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    const ObjId w = wall();
    grid_.wall_rect(0, 0, width_, height_, w);  // minigrid: horz_wall x 2, vert_wall x 2
    const int room_w = width_ / 3, room_h = height_ / 3;
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        const int x_l = i * room_w, y_t = j * room_h, x_r = x_l + room_w, y_b = y_t + room_h;
        if (i + 1 < 3) {
          grid_.vert_wall(x_r, y_t, room_h, w);
          const Pos pos{x_r, rand_int(y_t + 1, y_b - 1)};
          grid_.set(pos, new_door(rand_elem(kColorNames)));
        }
        if (j + 1 < 3) {
          grid_.horz_wall(x_l, y_b, room_w, w);
          const Pos pos{rand_int(x_l + 1, x_r - 1), y_b};
          grid_.set(pos, new_door(rand_elem(kColorNames)));
        }
      }
    place_agent();
    for (int k = 0; k < 12; ++k) {
      const Type type = type_of(rand_elem(kObjKinds));
      place_obj(add(type, rand_elem(kColorNames)));
    }
    mission_.clear();
  }
};

}  // namespace envhive::minigrid
