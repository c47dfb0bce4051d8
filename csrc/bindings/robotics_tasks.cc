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
}  // namespace

void register_module_tasks(TaskRegistry& registry) {
  robotics::set_maze_source(&maze_files);
  const nb::object dir = nb::module_::import_("envhive.families.robotics").attr("assets_dir")();
  robotics::register_tasks(registry, dir.is_none() ? std::string() : nb::cast<std::string>(dir));
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
