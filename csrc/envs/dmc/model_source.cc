#include "model_source.h"

#include <map>
#include <memory>
#include <string>
#include <vector>
#include <mutex>
#include <stdexcept>

#include "../mujoco/mujoco_env.h"

namespace envhive::dmc {

namespace {
std::mutex g_mu;  // guards all three
ModelSource g_source;
struct Entry {
  TaskModel model;
  int64_t leases = 0;  // envs alive that use it
};
std::map<std::string, Entry> g_models;
}  // namespace

void set_model_source(ModelSource source) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_source = std::move(source);
}

TaskModel task_model(const std::string& domain, const std::string& task, const ModelKwargs& kwargs) {
  std::string key = domain + "/" + task;
  for (const auto& [name, value] : kwargs) key += " " + name + "=" + std::to_string(value);
  ModelSource source;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto it = g_models.find(key); it != g_models.end()) return it->second.model;
    source = g_source;
  }
  if (!source) throw std::runtime_error("dm_control model source not set (register_dmc sets it)");
  // Outside the lock: the hook takes the GIL, which another thread may hold while it waits here.
  const ModelFiles files = source(domain, task, kwargs);
  TaskModel tm;
  tm.key = key;
  tm.model = mujoco::compile_model(files.xml, files.assets, "of dm_control task " + key);
  mjModel* twin = mj_copyModel(nullptr, tm.model.get());
  if (!twin) throw std::runtime_error("mj_copyModel failed");
  twin->opt.disableflags |= mjDSBL_ACTUATION;
  tm.no_actuation = mujoco::shared_model(twin);
  std::lock_guard<std::mutex> lock(g_mu);
  return g_models.try_emplace(key, Entry{std::move(tm), 0}).first->second.model;  // another thread's, if it won
}

std::shared_ptr<const void> lease_task_model(const TaskModel& model) {
  const std::string key = model.key;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ++g_models.try_emplace(key, Entry{model, 0}).first->second.leases;  // (back) in the cache while leased
  }
  return std::shared_ptr<const void>(nullptr, [key](const void*) {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_models.find(key);
    if (it != g_models.end() && --it->second.leases <= 0) g_models.erase(it);  // the envs' own copies go last
  });
}

std::vector<std::string> cached_task_models() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::vector<std::string> out;
  for (const auto& [key, entry] : g_models) out.push_back(key);
  return out;
}

}  // namespace envhive::dmc
