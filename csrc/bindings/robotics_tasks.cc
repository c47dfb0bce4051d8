// envhive._robotics: Gymnasium-Robotics on the libmujoco of the `mujoco` package. The models are
// the installed gymnasium-robotics package's assets; envhive.families.robotics finds the folder and
// builds the mazes' XML.
#include <nanobind/stl/string.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "../envs/robotics/maze.h"
#include "../envs/robotics/numerics.h"
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

// Whether numpy's np.dot of short float64 vectors fuses its multiply-adds here (OpenBLAS picks its
// kernel per CPU): numpy's dot of fixed vectors against both loops (robotics/numerics.h).
bool numpy_dot_is_fused() {
  nb::module_ np = nb::module_::import_("numpy");
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  };
  int fused = 0, plain = 0;
  for (int t = 0; t < 32; ++t) {
    double a[4], b[4];
    for (int k = 0; k < 4; ++k) a[k] = next(), b[k] = next();
    nb::object x = np.attr("array")(nb::make_tuple(a[0], a[1], a[2], a[3]));
    nb::object y = np.attr("array")(nb::make_tuple(b[0], b[1], b[2], b[3]));
    const double d = nb::cast<double>(x.attr("dot")(y));
    double f = 0.0, p = 0.0;
    for (int k = 0; k < 4; ++k) f = std::fma(b[k], a[k], f), p += b[k] * a[k];
    fused += d == f, plain += d == p;
  }
  return fused >= plain;
}

void register_module_tasks(TaskRegistry& registry) {
  robotics::numerics::set_fma_dot(numpy_dot_is_fused());
  robotics::set_maze_source(&maze_files);
  robotics::register_tasks(registry, assets_dir());
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
