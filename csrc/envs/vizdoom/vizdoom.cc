#include "vizdoom.h"

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "doom_files.h"
#include "vizdoom_env.h"

namespace envhive::vizdoom {

namespace {

// EnvPool's ids: its maps (the vizdoom wheel's scenarios, and D1-D4 from EnvPool's assets), each
// named by its words capitalised.
constexpr const char* kScenarios[] = {
    "D1_basic", "D2_navigation", "D3_battle", "D4_battle2", "basic", "basic_audio", "basic_notifications", "cig",
    "deadly_corridor", "deathmatch", "defend_the_center", "defend_the_line", "health_gathering",
    "health_gathering_supreme", "multi_duel", "my_way_home", "predict_position", "rocket_basic", "simpler_basic",
    "take_cover"};

std::string envpool_name(const std::string& scenario) {
  std::string out;
  bool up = true;
  for (char ch : scenario) {
    if (ch == '_') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return out;
}

}  // namespace

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  const auto named = [](const FamilyData::Files& files, const char* name) {
    for (const auto& [n, contents] : files)
      if (n == name) return contents;
    throw std::runtime_error(std::string("vizdoom: the family's resolver named no ") + name);
  };
  set_locators(
      [&data, named] {
        const FamilyData::Files files = data.resolve("doom");
        return DoomFiles{named(files, "client"), named(files, "engine"), named(files, "iwad")};
      },
      [&data, named](const std::string& scenario) {
        const FamilyData::Files files = data.resolve("scenario:" + scenario);
        return ScenarioFiles{named(files, "cfg"), named(files, "wad")};
      });
  TaskMeta meta{.family = "vizdoom", .max_episode_steps = 525, .max_seed = UINT32_MAX};
  for (const char* scenario : kScenarios) {
    meta.id = envpool_name(scenario) + "-v1";
    meta.doc = std::string("ViZDoom's ") + scenario + " scenario with EnvPool's preprocessing and rewards; EnvPool's id.";
    // cig and multi_duel are deathmatch maps: ViZDoom 1.3.2's engine dies starting them as a plain
    // game (EnvPool's settings; the vizdoom package's own DoomGame crashes the same way), so their
    // engine arguments default to -deathmatch.
    const std::string name = scenario;
    const bool deathmatch = name == "cig" || name == "multi_duel";
    register_task<VizdoomEnv>(registry, meta, TaskArgs{scenario, deathmatch ? "-deathmatch" : ""});
  }
  meta.id = "VizdoomCustom-v1";
  meta.doc = "A ViZDoom scenario of your own (cfg_path) with EnvPool's preprocessing and rewards; EnvPool's id.";
  register_task<VizdoomEnv>(registry, meta, TaskArgs{"", ""});
}

}  // namespace envhive::vizdoom
