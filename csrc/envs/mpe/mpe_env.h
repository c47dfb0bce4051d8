// One MPE task (mpe2's SimpleEnv behind pettingzoo's parallel_env): decodes the agents' actions
// (Discrete or continuous, mpe2's layout), steps the scenario's world, blends local and global
// rewards (local_ratio), and truncates every agent after max_cycles steps, as mpe2 does.
// Observations: a Dict of one float32 Box per agent (mpe2 casts its float64 concatenation).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../core/multi_agent.h"
#include "../../core/task.h"
#include "scenario.h"

namespace envhive::mpe {

class MpeEnv final : public MultiAgentEnv {
 public:
  static std::vector<ConfigField> config(const ScenarioDef& def);
  static Spaces spaces(const Config& c, const ScenarioDef& def);
  MpeEnv(const Config& c, int env_id, const ScenarioDef& def);

  void write_obs_leaves(void* const* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 protected:
  void reset_agents() override;
  void step_agents(const void* action_row) override;

 private:
  // How one agent's action reads (mpe2 SimpleEnv.__init__ / _execute_world_step / _set_action).
  struct ActionLayout {
    bool movable = false, silent = false;
    int64_t n = 0;      // Discrete: the number of actions
    size_t count = 0;   // continuous: the number of values
    size_t offset = 0;  // continuous: where the agent's values start in the row
  };
  static std::vector<ActionLayout> action_layouts(const Scenario& s, bool continuous);
  void set_discrete(size_t agent, int64_t a);
  // What agent i says in mpe2's frames ("" for a silent agent).
  std::string message(size_t agent) const;
  void set_continuous(size_t agent, const float* a);

  std::unique_ptr<Scenario> scenario_;
  std::vector<ActionLayout> layouts_;
  bool continuous_;
  bool has_local_ratio_;
  double local_ratio_ = 0.0;
  int64_t max_cycles_;
  int64_t steps_ = 0;
  bool dynamic_rescaling_;
  double original_cam_range_ = 1.0;  // mpe2's camera range at reset (the frames' zoom reference)
  mutable std::vector<double> obs_buf_;
  std::vector<float> action_buf_;  // one agent's continuous action, clipped
  std::vector<std::string> messages_;  // render(): each agent's text
};

}  // namespace envhive::mpe
