// envhive._mujoco: Gymnasium's MuJoCo tasks, linked against the libmujoco of the `mujoco` package
// (import `mujoco` first; envhive.backends does). Model files come from Gymnasium's assets.
#include <string>

#include "../envs/mujoco/mujoco.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

namespace {
// importlib.resources.files("gymnasium") / "envs/mujoco/assets", or "" when it cannot be found
// (then only absolute xml_file paths work, and the error says so).
std::string gymnasium_assets_dir() {
  try {
    nb::object files = nb::module_::import_("importlib.resources").attr("files");
    nb::object dir = files("gymnasium").attr("joinpath")("envs", "mujoco", "assets");
    return nb::cast<std::string>(nb::str(dir));
  } catch (const nb::python_error&) {
    return {};
  }
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) { register_mujoco(registry, gymnasium_assets_dir()); }

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
