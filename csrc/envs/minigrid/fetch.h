// MiniGrid-Fetch-*: minigrid.envs.FetchEnv. Pick up the named key or ball; picking up anything
// else ends the episode without reward.
#pragma once

#include <array>
#include <string_view>

#include "minigrid_env.h"

namespace envhive::minigrid {

class FetchEnv final : public MiniGridEnv {
 public:
  struct Params {
    int size, num_objs;
    Layout layout() const { return {.width = size, .height = size, .mission_length = 28}; }
  };
  FetchEnv(const Config& c, int, const Params& p) : MiniGridEnv(c, p.layout(), true), p_(p) {}

 private:
  void gen_grid() override {
    new_grid(width_, height_);
    grid_.wall_rect(0, 0, width_, height_, wall());  // minigrid: horz_wall x 2, vert_wall x 2
    std::vector<ObjId> objs;
    static constexpr std::array<Type, 2> kTypes = {Type::kKey, Type::kBall};
    while (static_cast<int>(objs.size()) < p_.num_objs) {
      const Type type = rand_elem(kTypes);
      const Color color = rand_elem(kColorNames);
      const ObjId id = add(type, color);
      place_obj(id);
      objs.push_back(id);
    }
    place_agent();
    const WorldObj& target = obj(objs[static_cast<size_t>(rand_int(0, static_cast<int>(objs.size())))]);
    target_type_ = target.type;
    target_color_ = target.color;
    static constexpr std::array<std::string_view, 5> kSyntax = {"get a", "go get a", "fetch a", "go fetch a",
                                                                "you must fetch a"};
    mission_ = std::string(kSyntax[static_cast<size_t>(rand_int(0, 5))]) + " " + std::string(name(target_color_)) +
               " " + std::string(name(target_type_));
  }
  StepResult act(int action) override {
    StepResult r = base_step(action);
    if (carrying_ != kNone) {
      const WorldObj& held = obj(carrying_);
      r.reward = held.color == target_color_ && held.type == target_type_ ? success_reward() : 0.0;
      r.terminated = true;
    }
    return r;
  }

  Params p_;
  Type target_type_ = Type::kKey;
  Color target_color_ = Color::kRed;
};

}  // namespace envhive::minigrid
