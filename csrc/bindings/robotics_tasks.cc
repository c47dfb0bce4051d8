// envhive._robotics: Gymnasium-Robotics on the libmujoco of the `mujoco` package. The models are
// the installed gymnasium-robotics package's assets; envhive.families.robotics finds the folder.
#include <string>

#include "../envs/robotics/robotics.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

void register_module_tasks(TaskRegistry& registry) {
  const nb::object dir = nb::module_::import_("envhive.families.robotics").attr("assets_dir")();
  robotics::register_tasks(registry, dir.is_none() ? std::string() : nb::cast<std::string>(dir));
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
