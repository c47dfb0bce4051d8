#include "doom_files.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace envhive::vizdoom {

namespace {
std::mutex& mu() {
  static std::mutex m;
  return m;
}
DoomLocator& doom_slot() {
  static DoomLocator l;
  return l;
}
ScenarioLocator& scenario_slot() {
  static ScenarioLocator l;
  return l;
}
}  // namespace

void set_locators(DoomLocator doom, ScenarioLocator scenarios) {
  std::lock_guard<std::mutex> lock(mu());
  doom_slot() = std::move(doom);
  scenario_slot() = std::move(scenarios);
}

const DoomFiles& doom_files() {
  static std::unique_ptr<DoomFiles> found;
  std::lock_guard<std::mutex> lock(mu());
  if (found) return *found;
  if (!doom_slot()) throw std::runtime_error("vizdoom: no locator installed (an envhive build error)");
  DoomFiles files = doom_slot()();
  found = std::make_unique<DoomFiles>(std::move(files));
  return *found;
}

ScenarioFiles scenario_files(const std::string& scenario) {
  static std::map<std::string, ScenarioFiles> cache;
  {
    std::lock_guard<std::mutex> lock(mu());
    if (auto it = cache.find(scenario); it != cache.end()) return it->second;
    if (!scenario_slot()) throw std::runtime_error("vizdoom: no locator installed (an envhive build error)");
  }
  ScenarioFiles files = scenario_slot()(scenario);  // may fetch: outside the lock
  std::lock_guard<std::mutex> lock(mu());
  return cache.emplace(scenario, std::move(files)).first->second;
}

}  // namespace envhive::vizdoom
