// MiniGrid-MultiRoom-*: minigrid.envs.MultiRoomEnv. A chain of rooms of random sizes joined by
// closed doors, grown by minigrid's recursive _placeRoom (kept: the longest chain drawn).
#pragma once

#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

class MultiRoomEnv final : public MiniGridEnv {
 public:
  struct Params {
    int min_rooms, max_rooms, max_room_size;
    Layout layout() const { return {.width = 25, .height = 25, .mission_length = 37}; }
  };
  MultiRoomEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false), p_(p) {}

 private:
  struct ChainRoom {
    Pos top, size, entry_door;
  };

  void gen_grid() override {
    std::vector<ChainRoom> rooms;
    const int num_rooms = rand_int(p_.min_rooms, p_.max_rooms + 1);
    while (static_cast<int>(rooms.size()) < num_rooms) {
      std::vector<ChainRoom> attempt;
      const int ex = rand_int(0, width_ - 2);
      const Pos entry{ex, rand_int(0, width_ - 2)};  // minigrid draws both from the width
      place_room(num_rooms, attempt, 4, p_.max_room_size, 2, entry);
      if (attempt.size() > rooms.size()) rooms = std::move(attempt);
    }
    new_grid(width_, height_);
    const ObjId w = wall();
    int prev_color = -1;
    for (size_t idx = 0; idx < rooms.size(); ++idx) {
      const ChainRoom& r = rooms[idx];
      for (int i = 0; i < r.size.x; ++i) {
        grid_.set(r.top.x + i, r.top.y, w);
        grid_.set(r.top.x + i, r.top.y + r.size.y - 1, w);
      }
      for (int j = 0; j < r.size.y; ++j) {
        grid_.set(r.top.x, r.top.y + j, w);
        grid_.set(r.top.x + r.size.x - 1, r.top.y + j, w);
      }
      if (idx > 0) {
        std::vector<Color> colors;  // sorted(set(COLOR_NAMES) - {previous door's color})
        for (Color c : kColorNames)
          if (static_cast<int>(c) != prev_color) colors.push_back(c);
        const Color color = rand_elem(colors);
        grid_.set(r.entry_door, new_door(color));
        prev_color = static_cast<int>(color);
      }
    }
    place_agent(rooms.front().top, rooms.front().size);
    place_obj(add(Type::kGoal, Color::kGreen), rooms.back().top, rooms.back().size);
    mission_ = "traverse the rooms to get to the goal";
  }

  // _placeRoom: true once this room is placed (whether or not the rest of the chain fits).
  bool place_room(int num_left, std::vector<ChainRoom>& rooms, int min_sz, int max_sz, int entry_wall, Pos entry) {
    const int size_x = rand_int(min_sz, max_sz + 1);
    const int size_y = rand_int(min_sz, max_sz + 1);
    int top_x, top_y;
    if (rooms.empty()) {
      top_x = entry.x;
      top_y = entry.y;
    } else if (entry_wall == 0) {
      top_x = entry.x - size_x + 1;
      top_y = rand_int(entry.y - size_y + 2, entry.y);
    } else if (entry_wall == 1) {
      top_x = rand_int(entry.x - size_x + 2, entry.x);
      top_y = entry.y - size_y + 1;
    } else if (entry_wall == 2) {
      top_x = entry.x;
      top_y = rand_int(entry.y - size_y + 2, entry.y);
    } else {
      top_x = rand_int(entry.x - size_x + 2, entry.x);
      top_y = entry.y;
    }
    if (top_x < 0 || top_y < 0) return false;
    if (top_x + size_x > width_ || top_y + size_y >= height_) return false;
    for (size_t k = 0; k + 1 < rooms.size(); ++k) {  // every room but the last
      const ChainRoom& r = rooms[k];
      const bool apart = top_x + size_x < r.top.x || r.top.x + r.size.x <= top_x || top_y + size_y < r.top.y ||
                         r.top.y + r.size.y <= top_y;
      if (!apart) return false;
    }
    rooms.push_back({{top_x, top_y}, {size_x, size_y}, entry});
    if (num_left == 1) return true;
    for (int attempt = 0; attempt < 8; ++attempt) {
      std::vector<int> walls;  // sorted({0, 1, 2, 3} - {entry_wall})
      for (int k = 0; k < 4; ++k)
        if (k != entry_wall) walls.push_back(k);
      const int exit_wall = rand_elem(walls);
      const int next_entry_wall = (exit_wall + 2) % 4;
      Pos exit;
      if (exit_wall == 0) {
        exit = {top_x + size_x - 1, top_y + rand_int(1, size_y - 1)};
      } else if (exit_wall == 1) {
        exit = {top_x + rand_int(1, size_x - 1), top_y + size_y - 1};
      } else if (exit_wall == 2) {
        exit = {top_x, top_y + rand_int(1, size_y - 1)};
      } else {
        exit = {top_x + rand_int(1, size_x - 1), top_y};
      }
      if (place_room(num_left - 1, rooms, min_sz, max_sz, next_entry_wall, exit)) break;
    }
    return true;
  }

  Params p_;
};

}  // namespace envhive::minigrid
