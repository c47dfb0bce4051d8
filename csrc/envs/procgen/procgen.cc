#include "procgen.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine_library.h"
#include "procgen_env.h"

namespace envhive::procgen {

#ifndef ENVHIVE_PROCGEN_BUILD_CACHE
#define ENVHIVE_PROCGEN_BUILD_CACHE ""
#endif

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  set_engine_locator([&data] {
    if (data.has("engine_dir")) {
      const std::string& dir = data.value("engine_dir");
      return EngineFiles{dir + "/libenv.so", dir + "/assets/"};
    }
    EngineFiles files;
    for (const auto& [name, contents] : data.resolve(std::string("engine\n") + ENVHIVE_PROCGEN_BUILD_CACHE)) {
      if (name == "library") files.library = contents;
      if (name == "assets") files.assets = contents;
    }
    if (files.library.empty() || files.assets.empty())
      throw std::runtime_error("procgen: the family's resolver named no engine library and assets");
    return files;
  });
  const TaskMeta base{.family = "procgen", .max_seed = static_cast<uint64_t>(std::numeric_limits<int32_t>::max())};
  for (const Game& game : games()) {
    TaskMeta meta = base;
    meta.id = std::string("procgen-") + game.name + "-v0";
    meta.doc = std::string("Procgen's ") + game.name + " (the official procgen 0.10.7 engine); upstream gym's id.";
    register_task<ProcgenEnv>(registry, meta, TaskArgs{&game, Mode::kHard});
    for (Mode mode : game.modes) {
      meta.id = std::string(game.title) + mode_title(mode) + "-v0";
      meta.doc = std::string("Procgen's ") + game.name + ", " + mode_name(mode) +
                 " levels (the official procgen 0.10.7 engine); EnvPool's id.";
      register_task<ProcgenEnv>(registry, meta, TaskArgs{&game, mode});
    }
  }
}


}  // namespace envhive::procgen
