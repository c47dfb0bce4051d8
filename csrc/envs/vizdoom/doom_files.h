// Where ViZDoom lies: the client (the C++ DoomGame API, compiled into the `vizdoom` wheel's Python
// extension, which exports its C++ symbols: doom_client.h), the engine binary, the IWAD and the
// scenarios. The module asks Python (envhive.families.vizdoom) once.
#pragma once

#include <functional>
#include <string>

namespace envhive::vizdoom {

struct DoomFiles {
  std::string client;  // .../vizdoom/vizdoom.cpython-3xx-...so
  std::string engine;  // .../vizdoom/vizdoom
  std::string iwad;    // .../vizdoom/freedoom2.wad
};
struct ScenarioFiles {
  std::string cfg, wad;  // empty for the custom id
};
using DoomLocator = std::function<DoomFiles()>;
using ScenarioLocator = std::function<ScenarioFiles(const std::string& scenario)>;

void set_locators(DoomLocator doom, ScenarioLocator scenarios);
// The files, located on the first call (std::runtime_error naming the problem otherwise; not
// remembered, so a later call retries).
const DoomFiles& doom_files();
ScenarioFiles scenario_files(const std::string& scenario);

}  // namespace envhive::vizdoom
