#include "task_table.h"

#include <map>
#include <stdexcept>

namespace envhive::metaworld {

const std::vector<TaskEntry>& task_table() {
  static const std::vector<TaskEntry> table = {
      assembly_task(),
      basketball_task(),
      bin_picking_task(),
      box_close_task(),
      button_press_topdown_task(),
      button_press_topdown_wall_task(),
      button_press_task(),
      button_press_wall_task(),
      coffee_button_task(),
      coffee_pull_task(),
      coffee_push_task(),
      dial_turn_task(),
      disassemble_task(),
      door_close_task(),
      door_lock_task(),
      door_open_task(),
      door_unlock_task(),
      hand_insert_task(),
      drawer_close_task(),
      drawer_open_task(),
      faucet_open_task(),
      faucet_close_task(),
      hammer_task(),
      handle_press_side_task(),
      handle_press_task(),
      handle_pull_side_task(),
      handle_pull_task(),
      lever_pull_task(),
      pick_place_wall_task(),
      pick_out_of_hole_task(),
      pick_place_task(),
      plate_slide_task(),
      plate_slide_side_task(),
      plate_slide_back_task(),
      plate_slide_back_side_task(),
      peg_insert_side_task(),
      peg_unplug_side_task(),
      soccer_task(),
      stick_push_task(),
      stick_pull_task(),
      push_task(),
      push_wall_task(),
      push_back_task(),
      reach_task(),
      reach_wall_task(),
      shelf_place_task(),
      sweep_into_task(),
      sweep_task(),
      window_open_task(),
      window_close_task(),
  };
  return table;
}

int task_index(const std::string& name) {
  static const std::map<std::string, int> index = [] {
    std::map<std::string, int> m;
    for (size_t i = 0; i < task_table().size(); ++i) m[task_table()[i].info.name] = static_cast<int>(i);
    return m;
  }();
  auto it = index.find(name);
  if (it == index.end()) {
    std::string names;
    for (const TaskEntry& t : task_table()) names += (names.empty() ? "" : ", ") + t.info.name;
    throw std::invalid_argument("unknown Meta-World task '" + name + "'; the v3 tasks are: " + names);
  }
  return it->second;
}

const TaskEntry& task_entry(const std::string& name) { return task_table()[static_cast<size_t>(task_index(name))]; }

DrawLoop draw_loop_of(const std::string& task) { return task_entry(task).draw_loop; }

void random_reset_space(const std::string& task, std::vector<double>& low, std::vector<double>& high) {
  const TaskInfo& t = task_entry(task).info;
  low = t.rand_low;
  high = t.rand_high;
}

}  // namespace envhive::metaworld
