#include "model_store.h"

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "../mujoco/mujoco_env.h"
#include "numerics.h"

namespace envhive::metaworld {

namespace {
std::mutex g_mu;
RuntimeSource g_source;
std::optional<Runtime> g_runtime;
std::map<std::string, std::shared_ptr<const mjModel>> g_models;
std::atomic<bool> g_dot_fma{false};
}  // namespace

void set_blas_dot_fma(bool fma) { g_dot_fma.store(fma, std::memory_order_relaxed); }
bool blas_dot_fma() { return g_dot_fma.load(std::memory_order_relaxed); }

void set_runtime_source(RuntimeSource source) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_source = std::move(source);
}

const Runtime& runtime() {
  RuntimeSource source;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_runtime) return *g_runtime;
    source = g_source;
  }
  if (!source) throw std::runtime_error("Meta-World runtime source not set (envhive._metaworld sets it when imported)");
  Runtime r = source();  // outside the lock: the hook takes the GIL
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_runtime) {
    g_runtime = std::move(r);
    set_blas_dot_fma(g_runtime->blas_dot_fma);
  }
  return *g_runtime;
}

std::shared_ptr<const mjModel> task_model(const std::string& xml) {
  const Runtime& rt = runtime();
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto it = g_models.find(xml); it != g_models.end()) return it->second;
  }
  const std::string path = (std::filesystem::path(rt.assets_dir) / xml).string();
  mujoco::install_handlers();
  char error[1024] = "";
  mjModel* m = nullptr;
  try {
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  } catch (const mujoco::MujocoError& e) {
    throw std::invalid_argument("could not load Meta-World model " + path + ": " + e.what());
  }
  if (!m) throw std::invalid_argument("could not load Meta-World model " + path + ": " + error);
#if defined(__GLIBC__)
  malloc_trim(0);  // the compiler's scratch (tens of MB per model) back to the OS: an MT50 pool loads 44 models
#endif
  std::shared_ptr<const mjModel> model(m, [](const mjModel* p) { mj_deleteModel(const_cast<mjModel*>(p)); });
  // SawyerMocapBase.reset_mocap_welds: every weld's data = (0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 5), the
  // fields MuJoCo 3 had (MuJoCo 4's twelfth keeps its compiled value, as the tests' shim does).
  if (m->nmocap > 0)
    for (int i = 0; i < m->neq; ++i)
      if (m->eq_type[i] == mjEQ_WELD) {
        const double weld[11] = {0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 5};
        std::copy(weld, weld + 11, m->eq_data + static_cast<size_t>(i) * mjNEQDATA);
      }
  std::lock_guard<std::mutex> lock(g_mu);
  return g_models.try_emplace(xml, std::move(model)).first->second;
}

}  // namespace envhive::metaworld
