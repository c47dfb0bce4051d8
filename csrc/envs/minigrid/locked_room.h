// MiniGrid-LockedRoom-v0: minigrid.envs.LockedRoomEnv. Six rooms off a hallway; the goal is in
// the locked one, its key in another.
#pragma once

#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

class LockedRoomEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 85}; }
  };
  LockedRoomEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false) {}

 private:
  struct SideRoom {
    Pos top, size, door;
    Color color = Color::kRed;
    bool locked = false;
    // LockedRoom.rand_pos: a cell inside the walls
    Pos rand_pos(LockedRoomEnv& env) const {
      return env.rand_pos(top.x + 1, top.x + size.x - 1, top.y + 1, top.y + size.y - 1);
    }
  };

  void gen_grid() override {
    new_grid(width_, height_);
    const ObjId w = wall();
    for (int i = 0; i < width_; ++i) {
      grid_.set(i, 0, w);
      grid_.set(i, height_ - 1, w);
    }
    for (int j = 0; j < height_; ++j) {
      grid_.set(0, j, w);
      grid_.set(width_ - 1, j, w);
    }
    const int l_wall = width_ / 2 - 2, r_wall = width_ / 2 + 2;
    for (int j = 0; j < height_; ++j) {
      grid_.set(l_wall, j, w);
      grid_.set(r_wall, j, w);
    }
    std::vector<SideRoom> rooms;
    for (int n = 0; n < 3; ++n) {
      const int j = n * (height_ / 3);
      for (int i = 0; i < l_wall; ++i) grid_.set(i, j, w);
      for (int i = r_wall; i < width_; ++i) grid_.set(i, j, w);
      const int room_w = l_wall + 1, room_h = height_ / 3 + 1;
      rooms.push_back({{0, j}, {room_w, room_h}, {l_wall, j + 3}});
      rooms.push_back({{r_wall, j}, {room_w, room_h}, {r_wall, j + 3}});
    }
    const size_t locked = static_cast<size_t>(rand_int(0, static_cast<int>(rooms.size())));
    rooms[locked].locked = true;
    grid_.set(rooms[locked].rand_pos(*this), add(Type::kGoal, Color::kGreen));
    std::vector<Color> colors(kColorNames.begin(), kColorNames.end());  // sorted(set(...)) as it shrinks
    for (SideRoom& room : rooms) {
      const size_t k = static_cast<size_t>(rand_int(0, static_cast<int>(colors.size())));
      room.color = colors[k];
      colors.erase(colors.begin() + static_cast<std::ptrdiff_t>(k));
      grid_.set(room.door, new_door(room.color, false, room.locked));
    }
    size_t key_room;
    do {
      key_room = static_cast<size_t>(rand_int(0, static_cast<int>(rooms.size())));
    } while (key_room == locked);
    grid_.set(rooms[key_room].rand_pos(*this), add(Type::kKey, rooms[locked].color));
    place_agent({l_wall, 0}, {r_wall - l_wall, height_});
    const std::string locked_color(name(rooms[locked].color));
    mission_ = "get the " + locked_color + " key from the " + std::string(name(rooms[key_room].color)) +
               " room, unlock the " + locked_color + " door and go to the goal";
  }
};

}  // namespace envhive::minigrid
