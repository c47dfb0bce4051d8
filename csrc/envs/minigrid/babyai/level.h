// BabyAI's levels: minigrid.envs.babyai.core.roomgrid_level.RoomGridLevel (generate a level and
// its instruction until both are valid, state the instruction as the mission, verify it step by
// step, budget the episode by it) and core.levelgen.LevelGen (random instruction trees over a
// random level: the Synth and Boss levels). A level writes gen_mission(); the instruction
// language itself is instructions.h.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "../room_grid.h"
#include "instructions.h"

namespace envhive::minigrid::babyai {

// RejectSampling: a level generated something its instruction cannot use; generate again.
struct RejectSampling : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What every level registration says besides the rooms.
struct LevelSpec {
  RoomGrid::Shape shape;
  // minigrid passes the level a max_steps: the registration's limit (a kwarg); else the limit is
  // a budget per episode, unless max_episode_steps is given.
  bool fixed_max_steps = false;
  int mission_length = 75;
  Layout layout(int num_actions = 7) const {
    return {.width = shape.width(),
            .height = shape.height(),
            .num_actions = num_actions,
            .mission_length = mission_length,
            .episode_budget = !fixed_max_steps};
  }
};

class Level : public RoomGrid {
 public:
  Level(const Config& c, const LevelSpec& spec);

 protected:
  // gen_mission(): the level's objects, the agent, and instrs_ (its root is the instruction).
  virtual void gen_mission() = 0;
  // LevelGen's `unblocking`: only LevelGen levels have it (validate_instrs then also refuses
  // instructions about keys of locked doors).
  virtual bool unblocking() const { return false; }

  // -- the instruction language over this level
  // find_matching_objs(env, use_location)
  void find_matching(ObjDesc& desc, bool use_location = true) const;
  std::string surface(ObjDesc& desc) const;
  std::string surface(int instr);
  void reset_verifier(int instr);
  Status verify(int instr, int action);
  void update_objs_poss(int instr);
  int num_navs_needed(int instr) const;
  void validate_instrs(int instr);
  bool objs_next(const Instr& put_next) const;

  // -- RoomGridLevel helpers
  void open_all_doors();
  // Unlock's and GoToImpUnlock's start: a locked door on a random room, the key of its color in
  // a random room. minigrid means another room, but compares the numpy ints with `is`, which
  // never holds: the key may land in the locked room, as there.
  struct LockedRoom {
    ObjId door;
    int room;     // its index in rooms_
    Pos room_ij;  // (i, j)
  };
  LockedRoom add_locked_room_and_key();
  // place_agent() again until the agent is outside room `room`.
  void place_agent_outside(int room);
  bool check_objs_reachable(bool raise_exc = true) const;

  void after_reset() override;

  Instrs instrs_;

 private:
  void gen_grid() final;
  StepResult act(int action) final;
  bool fixed_max_steps_;
};

}  // namespace envhive::minigrid::babyai
