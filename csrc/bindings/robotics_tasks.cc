// envhive._robotics: Gymnasium-Robotics on the libmujoco of the `mujoco` package. The models are
// the installed gymnasium-robotics package's assets; envhive.families.robotics finds the folder and
// builds the mazes' XML.
#include <nanobind/stl/string.h>

#include <string>

#include "../envs/robotics/maze.h"
#include "../envs/robotics/robotics.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

namespace {
// A maze's XML and map, built by Python once per maze (the GIL taken for that call only).
robotics::MazeFiles maze_files(const std::string& agent, const std::string& reference_id) {
  nb::gil_scoped_acquire gil;
  nb::object built = nb::module_::import_("envhive.families.robotics").attr("maze_model")(agent, reference_id);
  robotics::MazeFiles files;
  files.xml = nb::cast<std::string>(built[0]);
  for (nb::handle row : built[1]) files.rows.push_back(nb::cast<std::string>(row));
  return files;
}

// gymnasium_robotics/envs/assets of the installed package, found without importing it (nor envhive:
// this runs while the module loads), as envhive.families.robotics.assets_dir() finds it; "" if absent.
std::string assets_dir() {
  nb::object spec = nb::module_::import_("importlib.util").attr("find_spec")("gymnasium_robotics");
  if (spec.is_none() || spec.attr("submodule_search_locations").is_none()) return {};
  nb::object folder = nb::module_::import_("pathlib").attr("Path")(spec.attr("submodule_search_locations")[0]);
  return nb::cast<std::string>(nb::str(folder.attr("joinpath")("envs", "assets")));
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) {
  robotics::set_maze_source(&maze_files);
  robotics::register_tasks(registry, assets_dir());
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
