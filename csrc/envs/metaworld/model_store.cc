#include "model_store.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "../mujoco/mujoco_env.h"

namespace envhive::metaworld {

namespace {
std::mutex g_mu;
std::string g_assets_dir;
std::map<std::string, std::shared_ptr<const mjModel>> g_models;
}  // namespace

void set_assets_dir(std::string dir) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_assets_dir = std::move(dir);
}

std::shared_ptr<const mjModel> task_model(const std::string& xml) {
  std::string assets_dir;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto it = g_models.find(xml); it != g_models.end()) return it->second;
    assets_dir = g_assets_dir;
  }
  if (assets_dir.empty() || !std::filesystem::is_directory(std::filesystem::path(assets_dir) / "sawyer_xyz"))
    throw std::invalid_argument(  // ValueError, as the other families' missing model packages
        "the Meta-World tasks load their models from the metaworld package" +
        (assets_dir.empty() ? std::string(", which is not installed") : " (no sawyer_xyz in " + assets_dir + ")") +
        ": pip install \"envhive[metaworld]\" && pip install --no-deps \"metaworld==3.1.1\"");
  const std::string path = (std::filesystem::path(assets_dir) / xml).string();
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
  // A shared model (its serial keys a thread's render assets, as every MuJoCo family's models do).
  std::shared_ptr<const mjModel> model = mujoco::shared_model(m);
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
