#include "crafter.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "crafter_env.h"
#include "rules.h"

namespace envhive::crafter {

namespace {

// The files of a folder as texture files (crafter_loop_bench: written by the descriptor's
// loop_bench_data), named by their file names.
TextureFiles read_folder(const std::string& dir) {
  TextureFiles files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    files.emplace_back(entry.path().filename().string(), bytes.str());
  }
  return files;
}

// Throws when a rule compiled in (crafter 1.8.3's data.yaml) differs from the installed crafter's:
// `rules` holds "<dotted path> <value>" lines of crafter.constants' numbers.
void check_rules(const FamilyData::Files& rules) {
  std::map<std::string, double> installed;
  for (const auto& [name, text] : rules) {
    std::istringstream lines(text);
    std::string path;
    double value = 0;
    while (lines >> path >> value) installed[path] = value;
  }
  std::string wrong;
  for (const auto& [path, value] : rule_numbers()) {
    auto it = installed.find(path);
    if (it == installed.end() || it->second != value)
      wrong += "; " + path + ": envhive " + std::to_string(value) + ", crafter " +
               (it == installed.end() ? std::string("none") : std::to_string(it->second));
  }
  if (!wrong.empty())
    throw std::runtime_error("envhive's Crafter was built for crafter 1.8.3's rules; the installed crafter differs" +
                             wrong);
}

}  // namespace

void register_tasks(TaskRegistry& registry, std::shared_ptr<const TextureLoader> textures) {
  register_task<CrafterEnv>(registry,
                            {.id = "CrafterReward-v1",
                             .family = "crafter",
                             .doc = "Crafter: survive and unlock 22 achievements in a 2D open world (reward: +1 per "
                                    "first unlock, +-0.1 per health point).",
                             .max_episode_steps = 10000},
                            textures, true);
  register_task<CrafterEnv>(registry,
                            {.id = "CrafterNoReward-v1",
                             .family = "crafter",
                             .doc = "Crafter without reward (the achievements are still reported in info).",
                             .max_episode_steps = 10000},
                            std::move(textures), false);
}

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  if (data.has("textures_dir")) {
    register_tasks(registry, std::make_shared<const TextureLoader>(
                                 [dir = data.value("textures_dir")] { return read_folder(dir); }));
    return;
  }
  register_tasks(registry, std::make_shared<const TextureLoader>([&data] {
                   check_rules(data.resolve("rules"));
                   return data.resolve("textures");
                 }));
}

}  // namespace envhive::crafter
