// envhive._native: the families with no third-party dependency.
#include <string>

#include "../envs/classic_control/classic_control.h"
#include "../envs/python/python_envs.h"
#include "../envs/testing/testing.h"
#include "../envs/toy_text/toy_text.h"
#include "module_tasks.h"

namespace envhive {

namespace {
// importlib.resources.files("gymnasium") / "envs" / family / folder: Gymnasium's images (Pendulum's
// arrow, the toy-text pixel art), or "" when it cannot be found. Gymnasium is a dependency of
// envhive, imported already.
std::string gymnasium_images_dir(const char* family, const char* folder) {
  try {
    nanobind::object files = nanobind::module_::import_("importlib.resources").attr("files");
    nanobind::object dir = files("gymnasium").attr("joinpath")("envs", family, folder);
    return nanobind::cast<std::string>(nanobind::str(dir));
  } catch (const nanobind::python_error&) {
    return {};
  }
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) {
  register_classic_control(registry, gymnasium_images_dir("classic_control", "assets"));
  register_toy_text(registry, gymnasium_images_dir("toy_text", "img"));
  register_testing(registry);
}

// Environments written in Python register here at run time (envhive.authoring).
void bind_module_extras(nanobind::module_& m) { python::bind_python_envs(m); }

}  // namespace envhive
