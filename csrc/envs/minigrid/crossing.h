// MiniGrid-LavaCrossing* / SimpleCrossing*: minigrid.envs.CrossingEnv. Rivers of lava (or walls)
// across the room, each crossed by one gap on a path to the goal.
#pragma once

#include <algorithm>
#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

class CrossingEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size, num_crossings;
    bool lava;  // else walls
    Layout layout() const { return {.width = size, .height = size, .mission_length = 49}; }
  };
  CrossingEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false), p_(p) {}

 private:
  enum Dir : uint8_t { kVertical, kHorizontal };  // minigrid's `v` and `h` markers
  struct River {
    Dir dir;
    int pos;
  };

  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    put_obj(add(Type::kGoal, Color::kGreen), width_ - 2, height_ - 2);
    std::vector<River> rivers;
    for (int i = 2; i < height_ - 2; i += 2) rivers.push_back({kVertical, i});
    for (int j = 2; j < width_ - 2; j += 2) rivers.push_back({kHorizontal, j});
    rng().shuffle(rivers.data(), rivers.size());
    rivers.resize(std::min(rivers.size(), static_cast<size_t>(p_.num_crossings)));
    std::vector<int> rivers_v, rivers_h;
    for (const River& r : rivers) (r.dir == kVertical ? rivers_v : rivers_h).push_back(r.pos);
    std::sort(rivers_v.begin(), rivers_v.end());
    std::sort(rivers_h.begin(), rivers_h.end());
    const ObjId obstacle = p_.lava ? add(Type::kLava, Color::kRed) : wall();
    for (int j : rivers_h)
      for (int i = 1; i < width_ - 1; ++i) put_obj(obstacle, i, j);
    for (int i : rivers_v)
      for (int j = 1; j < height_ - 1; ++j) put_obj(obstacle, i, j);
    std::vector<Dir> path(rivers_v.size(), kHorizontal);
    path.insert(path.end(), rivers_h.size(), kVertical);
    rng().shuffle(path.data(), path.size());
    std::vector<int> limits_v{0}, limits_h{0};
    limits_v.insert(limits_v.end(), rivers_v.begin(), rivers_v.end());
    limits_v.push_back(height_ - 1);
    limits_h.insert(limits_h.end(), rivers_h.begin(), rivers_h.end());
    limits_h.push_back(width_ - 1);
    size_t room_i = 0, room_j = 0;
    for (Dir d : path) {
      int i, j;
      if (d == kHorizontal) {
        i = limits_v[room_i + 1];
        j = choice(limits_h[room_j] + 1, limits_h[room_j + 1]);
        ++room_i;
      } else {
        i = choice(limits_v[room_i] + 1, limits_v[room_i + 1]);
        j = limits_h[room_j + 1];
        ++room_j;
      }
      grid_.set(i, j, kNone);
    }
    mission_ = p_.lava ? "avoid the lava and get to the green goal square"
                       : "find the opening and get to the green goal square";
  }
  // np_random.choice(range(low, high))
  int choice(int low, int high) { return low + static_cast<int>(rng().integers(0, high - low)); }

  Params p_;
};

}  // namespace envhive::minigrid
