// envhive._atari: the Atari family. ALE is GPL-2.0, so it is linked into this module only.
// The ROMs are the installed ale-py wheel's (ale_py/roms/*.bin, or $ALE_ROMS_DIR as ale-py
// honours it); they are found here, at import, without importing ale_py itself.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../envs/atari/atari.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {
namespace {

std::string rom_dir() {
  if (const char* env = std::getenv("ALE_ROMS_DIR"); env && *env) return env;
  nb::object spec = nb::module_::import_("importlib.util").attr("find_spec")("ale_py");
  if (spec.is_none())
    throw nb::import_error(
        "envhive's Atari tasks take their ROMs from the ale-py wheel, which is not installed: "
        "pip install ale-py==" ENVHIVE_ALE_VERSION);
  nb::object locations = spec.attr("submodule_search_locations");
  std::filesystem::path roms = std::filesystem::path(nb::str(locations[0]).c_str()) / "roms";
  if (!std::filesystem::is_directory(roms))
    throw nb::import_error(("ale-py has no ROM folder at " + roms.string() +
                            "; reinstall it: pip install --force-reinstall ale-py==" ENVHIVE_ALE_VERSION)
                               .c_str());
  return roms.string();
}

}  // namespace

void register_module_tasks(TaskRegistry& registry) { register_atari(registry, rom_dir()); }

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
