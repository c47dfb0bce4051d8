// The 50 Meta-World v3 tasks (metaworld.env_dict.ALL_V3_ENVIRONMENTS, in its order): each task
// file (tasks/*.cc) provides one entry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sawyer_env.h"

namespace envhive::metaworld {

using MakeEnv = std::unique_ptr<SawyerEnv> (*)(const EnvSettings&, std::shared_ptr<const mjModel>);

struct TaskEntry {
  TaskInfo info;
  DrawLoop draw_loop = &draw_once;
  MakeEnv make = nullptr;
};

template <class E>
std::unique_ptr<SawyerEnv> make_env(const EnvSettings& s, std::shared_ptr<const mjModel> m) {
  return std::make_unique<E>(s, std::move(m));
}

// Every task, in ALL_V3_ENVIRONMENTS's order; task_entry throws std::invalid_argument for an
// unknown name (listing the names).
const std::vector<TaskEntry>& task_table();
const TaskEntry& task_entry(const std::string& name);
int task_index(const std::string& name);

// The reset space of a task: obj_low + goal_low .. (the common layout) as one vector.
inline std::vector<double> cat(std::initializer_list<double> a) { return std::vector<double>(a); }

// The entries, one function per task file.
TaskEntry assembly_task();
TaskEntry basketball_task();
TaskEntry bin_picking_task();
TaskEntry box_close_task();
TaskEntry button_press_topdown_task();
TaskEntry button_press_topdown_wall_task();
TaskEntry button_press_task();
TaskEntry button_press_wall_task();
TaskEntry coffee_button_task();
TaskEntry coffee_pull_task();
TaskEntry coffee_push_task();
TaskEntry dial_turn_task();
TaskEntry disassemble_task();
TaskEntry door_close_task();
TaskEntry door_lock_task();
TaskEntry door_open_task();
TaskEntry door_unlock_task();
TaskEntry hand_insert_task();
TaskEntry drawer_close_task();
TaskEntry drawer_open_task();
TaskEntry faucet_open_task();
TaskEntry faucet_close_task();
TaskEntry hammer_task();
TaskEntry handle_press_side_task();
TaskEntry handle_press_task();
TaskEntry handle_pull_side_task();
TaskEntry handle_pull_task();
TaskEntry lever_pull_task();
TaskEntry pick_place_wall_task();
TaskEntry pick_out_of_hole_task();
TaskEntry pick_place_task();
TaskEntry plate_slide_task();
TaskEntry plate_slide_side_task();
TaskEntry plate_slide_back_task();
TaskEntry plate_slide_back_side_task();
TaskEntry peg_insert_side_task();
TaskEntry peg_unplug_side_task();
TaskEntry soccer_task();
TaskEntry stick_push_task();
TaskEntry stick_pull_task();
TaskEntry push_task();
TaskEntry push_wall_task();
TaskEntry push_back_task();
TaskEntry reach_task();
TaskEntry reach_wall_task();
TaskEntry shelf_place_task();
TaskEntry sweep_into_task();
TaskEntry sweep_task();
TaskEntry window_open_task();
TaskEntry window_close_task();

// --- shared draw loops ---
// while norm(v[:2] - v[3:5]) < min_dist: redraw (a 6-value vector: object, then goal).
template <int kMinDistMilli>
RandVec draw_apart(const DrawFn& draw) {
  RandVec v = draw();
  const double min_dist = kMinDistMilli / 1000.0;
  while (true) {
    const double d[2] = {v[0] - v[3], v[1] - v[4]};
    if (!(norm(d, 2) < min_dist)) break;
    v = draw();
  }
  return v;
}

}  // namespace envhive::metaworld
