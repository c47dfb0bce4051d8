// MiniGrid-GoToObject-*: minigrid.envs.GoToObjectEnv. Distinct objects in a room; stand next to
// the named one and say done.
#pragma once

#include <algorithm>
#include <vector>

#include "go_to_door.h"
#include "room_grid.h"

namespace envhive::minigrid {

class GoToObjectEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size, num_objs;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 23}; }
  };
  GoToObjectEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    std::vector<std::pair<Type, Color>> objs;
    std::vector<Pos> positions;
    while (static_cast<int>(objs.size()) < p_.num_objs) {
      const Type type = type_of(rand_elem(kObjKinds));
      const Color color = rand_elem(kColorNames);
      if (std::find(objs.begin(), objs.end(), std::pair{type, color}) != objs.end()) continue;
      positions.push_back(place_obj(add(type, color)));
      objs.emplace_back(type, color);
    }
    place_agent();
    const size_t target = static_cast<size_t>(rand_int(0, static_cast<int>(objs.size())));
    target_ = positions[target];
    mission_ = "go to the " + std::string(name(objs[target].second)) + " " + std::string(name(objs[target].first));
  }
  StepResult act(int action) override {
    StepResult r = base_step(action);
    go_to_step(r, action, agent_pos_, target_, success_reward());
    return r;
  }
  Params p_;
  Pos target_;
};

}  // namespace envhive::minigrid
