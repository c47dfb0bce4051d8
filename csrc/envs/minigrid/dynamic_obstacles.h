// MiniGrid-Dynamic-Obstacles-*: minigrid.envs.DynamicObstaclesEnv. Balls that move one cell at
// random every step; walking into one costs -1 and ends the episode. Three actions.
#pragma once

#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

class DynamicObstaclesEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size, n_obstacles;
    bool random_start;  // agent_start_pos=None
    Layout layout() const { return {.width = size, .height = size, .num_actions = 3, .mission_length = 28}; }
  };
  DynamicObstaclesEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {
    // minigrid keeps n_obstacles when it is at most size / 2 + 1, else int(size / 2).
    n_obstacles_ = p.n_obstacles <= p.size / 2.0 + 1 ? p.n_obstacles : p.size / 2;
  }

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());
    grid_.set(width_ - 2, height_ - 2, add(Type::kGoal, Color::kGreen));
    if (!p_.random_start) {
      agent_pos_ = {1, 1};
      agent_dir_ = 0;
    } else {
      place_agent();
    }
    obstacles_.clear();
    for (int i = 0; i < n_obstacles_; ++i) {
      obstacles_.push_back(add(Type::kBall, Color::kBlue));
      place_obj(obstacles_.back(), {0, 0}, {-1, -1}, NoReject{}, 100);
    }
    mission_ = "get to the green goal square";
  }

  StepResult act(int action) override {
    const WorldObj* front = cell(front_pos());
    const bool not_clear = front != nullptr && front->type != Type::kGoal;
    for (ObjId id : obstacles_) {
      const Pos old = obj(id).cur_pos;
      try {
        place_obj(id, {old.x - 1, old.y - 1}, {3, 3}, NoReject{}, 100);
        grid_.set(old, kNone);
      } catch (const RecursionError&) {
        // minigrid leaves an obstacle that finds no free cell where it is
      }
    }
    StepResult r = base_step(action);
    if (action == kForward && not_clear) {
      r.reward = -1;
      r.terminated = true;
    }
    return r;
  }

  Params p_;
  int n_obstacles_;
  std::vector<ObjId> obstacles_;
};

}  // namespace envhive::minigrid
