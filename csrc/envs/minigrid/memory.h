// MiniGrid-MemoryS*: minigrid.envs.MemoryEnv. See an object in the start room, walk down the
// hallway, and end next to the matching one of the two at its end.
#pragma once

#include "minigrid_env.h"

namespace envhive::minigrid {

class MemoryEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size;
    bool random_length;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 51}; }
  };
  MemoryEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), false), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    const ObjId w = wall();
    grid_.wall_rect(0, 0, width_, height_, w);  // minigrid: horz_wall x 2, vert_wall x 2
    const int mid = height_ / 2, upper = mid - 2, lower = mid + 2;
    const int hallway_end = p_.random_length ? rand_int(4, width_ - 2) : width_ - 3;
    for (int i = 1; i < 5; ++i) {
      grid_.set(i, upper, w);
      grid_.set(i, lower, w);
    }
    grid_.set(4, upper + 1, w);
    grid_.set(4, lower - 1, w);
    for (int i = 5; i < hallway_end; ++i) {
      grid_.set(i, upper + 1, w);
      grid_.set(i, lower - 1, w);
    }
    for (int j = 0; j < height_; ++j) {
      if (j != mid) grid_.set(hallway_end, j, w);
      grid_.set(hallway_end + 2, j, w);
    }
    agent_pos_ = {rand_int(1, hallway_end + 1), mid};
    agent_dir_ = 0;
    const bool start_key = rand_int(0, 2) == 0;    // _rand_elem([Key, Ball])
    const bool ball_first = rand_int(0, 2) == 0;   // _rand_elem([[Ball, Key], [Key, Ball]])
    grid_.set(1, mid - 1, add(start_key ? Type::kKey : Type::kBall, Color::kGreen));
    const Pos pos0{hallway_end + 1, mid - 2}, pos1{hallway_end + 1, mid + 2};
    grid_.set(pos0, add(ball_first ? Type::kBall : Type::kKey, Color::kGreen));
    grid_.set(pos1, add(ball_first ? Type::kKey : Type::kBall, Color::kGreen));
    const bool first_matches = start_key != ball_first;  // other_objs[0] is the start room's kind
    success_ = first_matches ? Pos{pos0.x, pos0.y + 1} : Pos{pos1.x, pos1.y - 1};
    failure_ = first_matches ? Pos{pos1.x, pos1.y - 1} : Pos{pos0.x, pos0.y + 1};
    mission_ = "go to the matching object at the end of the hallway";
  }
  StepResult act(int action) override {
    StepResult r = base_step(action == kPickup ? kToggle : action);
    if (agent_pos_ == success_) {
      r.reward = success_reward();
      r.terminated = true;
    }
    if (agent_pos_ == failure_) {
      r.reward = 0;
      r.terminated = true;
    }
    return r;
  }
  Params p_;
  Pos success_, failure_;
};

}  // namespace envhive::minigrid
