// MiniGrid-GoToDoor-*: minigrid.envs.GoToDoorEnv. Four doors of distinct colors in a room of
// random size; stand next to the named one and say done (toggle ends the episode too).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

// Both GoTo tasks' step(): `done` next to the target pays; `toggle` and `done` end the episode.
inline void go_to_step(StepResult& r, int action, Pos agent, Pos target, double reward) {
  if (action == kToggle) r.terminated = true;
  if (action == kDone) {
    if ((agent.x == target.x && std::abs(agent.y - target.y) == 1) ||
        (agent.y == target.y && std::abs(agent.x - target.x) == 1))
      r.reward = reward;
    r.terminated = true;
  }
}

class GoToDoorEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 22}; }
  };
  GoToDoorEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    const int w = rand_int(5, width_ + 1);
    const int h = rand_int(5, height_ + 1);
    grid_.wall_rect(0, 0, w, h, wall());
    std::vector<Pos> doors;
    doors.push_back({rand_int(2, w - 2), 0});
    doors.push_back({rand_int(2, w - 2), h - 1});
    doors.push_back({0, rand_int(2, h - 2)});
    doors.push_back({w - 1, rand_int(2, h - 2)});
    std::vector<Color> colors;
    while (colors.size() < doors.size()) {
      const Color c = rand_elem(kColorNames);
      if (std::find(colors.begin(), colors.end(), c) == colors.end()) colors.push_back(c);
    }
    for (size_t k = 0; k < doors.size(); ++k) grid_.set(doors[k], new_door(colors[k]));
    place_agent({0, 0}, {w, h});
    const size_t target = static_cast<size_t>(rand_int(0, static_cast<int>(doors.size())));
    target_ = doors[target];
    mission_ = "go to the " + std::string(name(colors[target])) + " door";
  }
  StepResult act(int action) override {
    StepResult r = base_step(action);
    go_to_step(r, action, agent_pos_, target_, success_reward());
    return r;
  }
  Pos target_;
};

}  // namespace envhive::minigrid
