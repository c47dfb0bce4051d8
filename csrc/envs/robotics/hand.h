// The Shadow Hand task ids: HandReach (hand_reach.cc) and the manipulation tasks
// (hand_manipulate.cc), with what registration tells them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive::robotics {

// One manipulation task: its object, goal kind and touch sensors (manipulate_*.py).
struct HandManipulateTask {
  std::string object;           // "block", "egg" or "pen"
  std::string target_position;  // "random" or "ignore"
  std::string target_rotation;  // "xyz", "z" or "parallel"
  std::string touch;            // "": no touch sensors; "boolean" or "sensordata"
  bool dense = false;           // the id's default reward_type
};

Spaces hand_reach_spaces(const Config& c);
std::unique_ptr<Env> make_hand_reach(const Config& c);
Spaces hand_manipulate_spaces(const Config& c, const HandManipulateTask& t);
std::unique_ptr<Env> make_hand_manipulate(const Config& c, const HandManipulateTask& t);

// What register_task reads for the two kinds of hand task: their kwargs here, their spaces and envs
// through TaskTraits (the env classes live in hand_reach.cc and hand_manipulate.cc).
struct HandReachTask {
  bool dense = false;
};
class HandReachDecl : public Env {
 public:
  static std::vector<ConfigField> config(const HandReachTask& t);
  void write_obs_leaves(void* const* dst) const override = 0;
};
class HandManipulateDecl : public Env {
 public:
  static std::vector<ConfigField> config(const HandManipulateTask& t);
  void write_obs_leaves(void* const* dst) const override = 0;
};

}  // namespace envhive::robotics

namespace envhive {

template <>
struct TaskTraits<robotics::HandReachDecl> {
  static std::vector<ConfigField> config(const robotics::HandReachTask& t) { return robotics::HandReachDecl::config(t); }
  static Spaces spaces(const Config& c, const robotics::HandReachTask&) { return robotics::hand_reach_spaces(c); }
  static std::unique_ptr<Env> make(const Config& c, int, const robotics::HandReachTask&) {
    return robotics::make_hand_reach(c);
  }
};
template <>
struct TaskTraits<robotics::HandManipulateDecl> {
  static std::vector<ConfigField> config(const robotics::HandManipulateTask& t) {
    return robotics::HandManipulateDecl::config(t);
  }
  static Spaces spaces(const Config& c, const robotics::HandManipulateTask& t) {
    return robotics::hand_manipulate_spaces(c, t);
  }
  static std::unique_ptr<Env> make(const Config& c, int, const robotics::HandManipulateTask& t) {
    return robotics::make_hand_manipulate(c, t);
  }
};

}  // namespace envhive
