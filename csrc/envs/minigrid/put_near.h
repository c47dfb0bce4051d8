// MiniGrid-PutNear-*: minigrid.envs.PutNearEnv. Pick up the named object and drop it next to the
// other named one; picking up a wrong object or dropping anywhere ends the episode.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "room_grid.h"

namespace envhive::minigrid {

class PutNearEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size, num_objs;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 44}; }
  };
  PutNearEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    const ObjId w = wall();
    grid_.wall_rect(0, 0, width_, height_, w);  // minigrid: horz_wall x 2, vert_wall x 2
    std::vector<std::pair<Type, Color>> objs;
    std::vector<Pos> positions;
    auto near_obj = [&positions](Pos p) {
      return std::any_of(positions.begin(), positions.end(),
                         [p](Pos q) { return std::abs(p.x - q.x) <= 1 && std::abs(p.y - q.y) <= 1; });
    };
    while (static_cast<int>(objs.size()) < p_.num_objs) {
      const Type type = type_of(rand_elem(kObjKinds));
      const Color color = rand_elem(kColorNames);
      if (std::find(objs.begin(), objs.end(), std::pair{type, color}) != objs.end()) continue;
      positions.push_back(place_obj(add(type, color), {0, 0}, {-1, -1}, near_obj));
      objs.emplace_back(type, color);
    }
    place_agent();
    const int n = static_cast<int>(objs.size());
    const int move = rand_int(0, n);
    int target;
    do {
      target = rand_int(0, n);
    } while (target == move);
    move_ = objs[static_cast<size_t>(move)];
    target_pos_ = positions[static_cast<size_t>(target)];
    const auto& t = objs[static_cast<size_t>(target)];
    mission_ = "put the " + std::string(name(move_.second)) + " " + std::string(name(move_.first)) + " near the " +
               std::string(name(t.second)) + " " + std::string(name(t.first));
  }
  StepResult act(int action) override {
    const ObjId pre_carrying = carrying_;
    StepResult r = base_step(action);
    const Pos o = front_pos();
    if (action == kPickup && carrying_ != kNone) {
      const WorldObj& held = obj(carrying_);
      if (held.type != move_.first || held.color != move_.second) r.terminated = true;
    }
    if (action == kDrop && pre_carrying != kNone) {
      if (grid_.get(o) == pre_carrying && std::abs(o.x - target_pos_.x) <= 1 && std::abs(o.y - target_pos_.y) <= 1)
        r.reward = success_reward();
      r.terminated = true;
    }
    return r;
  }
  Params p_;
  std::pair<Type, Color> move_{};
  Pos target_pos_;
};

}  // namespace envhive::minigrid
