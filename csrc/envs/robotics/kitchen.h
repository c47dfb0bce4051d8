// Gymnasium-Robotics' FrankaKitchen-v1 (franka_kitchen/kitchen_env.py on franka_env.py's
// FrankaRobot): a Franka arm in joint-velocity control in a kitchen, rewarded by the number of
// tasks (burners, light switch, cabinets, microwave, kettle) completed at a step.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive::robotics {

struct KitchenTask {};

class KitchenDecl : public Env {
 public:
  static std::vector<ConfigField> config(const KitchenTask&);
  void write_obs_leaves(void* const* dst) const override = 0;
};
Spaces kitchen_spaces(const Config& c);
std::unique_ptr<Env> make_kitchen(const Config& c);

}  // namespace envhive::robotics

namespace envhive {

template <>
struct TaskTraits<robotics::KitchenDecl> {
  static std::vector<ConfigField> config(const robotics::KitchenTask& t) { return robotics::KitchenDecl::config(t); }
  static Spaces spaces(const Config& c, const robotics::KitchenTask&) { return robotics::kitchen_spaces(c); }
  static std::unique_ptr<Env> make(const Config& c, int, const robotics::KitchenTask&) {
    return robotics::make_kitchen(c);
  }
};

}  // namespace envhive
