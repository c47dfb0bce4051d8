// envhive._native: the families with no third-party dependency.
#include <string>

#include "../envs/classic_control/classic_control.h"
#include "../envs/python/python_envs.h"
#include "../envs/testing/testing.h"
#include "module_tasks.h"

namespace envhive {

namespace {
// importlib.resources.files("gymnasium") / "envs/classic_control/assets" (Pendulum's arrow), or ""
// when it cannot be found. Gymnasium is a dependency of envhive, imported already.
std::string classic_assets_dir() {
  try {
    nanobind::object files = nanobind::module_::import_("importlib.resources").attr("files");
    nanobind::object dir = files("gymnasium").attr("joinpath")("envs", "classic_control", "assets");
    return nanobind::cast<std::string>(nanobind::str(dir));
  } catch (const nanobind::python_error&) {
    return {};
  }
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) {
  register_classic_control(registry, classic_assets_dir());
  register_testing(registry);
}

// Environments written in Python register here at run time (envhive.authoring).
void bind_module_extras(nanobind::module_& m) { python::bind_python_envs(m); }

}  // namespace envhive
