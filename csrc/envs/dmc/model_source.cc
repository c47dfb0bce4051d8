#include "model_source.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "../mujoco/mujoco_env.h"

namespace envhive::dmc {

namespace {
std::mutex g_mu;  // guards both
ModelSource g_source;
std::map<std::string, TaskModel> g_models;  // node-based: references stay valid
}  // namespace

void set_model_source(ModelSource source) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_source = std::move(source);
}

const TaskModel& task_model(const std::string& domain, const std::string& task, const ModelKwargs& kwargs) {
  std::string key = domain + "/" + task;
  for (const auto& [name, value] : kwargs) key += " " + name + "=" + std::to_string(value);
  ModelSource source;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto it = g_models.find(key); it != g_models.end()) return it->second;
    source = g_source;
  }
  if (!source) throw std::runtime_error("dm_control model source not set (register_dmc sets it)");
  // Outside the lock: the hook takes the GIL, which another thread may hold while it waits here.
  const ModelFiles files = source(domain, task, kwargs);
  TaskModel tm;
  tm.model = mujoco::compile_model(files.xml, files.assets, "of dm_control task " + key);
  mjModel* twin = mj_copyModel(nullptr, tm.model.get());
  if (!twin) throw std::runtime_error("mj_copyModel failed");
  twin->opt.disableflags |= mjDSBL_ACTUATION;
  tm.no_actuation = ModelPtr(twin, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
  std::lock_guard<std::mutex> lock(g_mu);
  return g_models.try_emplace(key, std::move(tm)).first->second;  // another thread's, if it won
}

}  // namespace envhive::dmc
