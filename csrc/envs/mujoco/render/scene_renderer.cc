#include "scene_renderer.h"

#include "../mujoco_env.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace envhive::mujoco {

namespace {
// MuJoCo's GLAD writes process-global function pointers in every mjr_makeContext: serialise them.
std::mutex g_make_context_mu;
}  // namespace

double np_median(std::vector<double>& v) {
  const size_t n = v.size();
  if (n == 0) return std::nan("");
  for (double x : v)
    if (std::isnan(x)) return x;
  const size_t k = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  const double upper = v[k];
  if (n % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k));
  // np.mean of the two: (lower + upper) / 2, summed in that order.
  return (lower + upper) / 2.0;
}

GymCameraConfig GymCameraConfig::from_table(const ConfigTable& table) {
  GymCameraConfig c;
  for (const auto& [key, values] : table) {
    const auto scalar = [&, &key = key, &values = values]() {
      if (values.size() != 1 || !std::isfinite(values[0]))
        throw std::invalid_argument("default_camera_config['" + key + "'] must be one finite number");
      return values[0];
    };
    const auto integer = [&, &key = key]() {
      const double v = scalar();
      if (v != std::trunc(v) || std::fabs(v) > 1e9)
        throw std::invalid_argument("default_camera_config['" + key + "'] must be an integer");
      return static_cast<int>(v);
    };
    if (key == "distance") {
      c.distance = scalar();
    } else if (key == "azimuth") {
      c.azimuth = scalar();
    } else if (key == "elevation") {
      c.elevation = scalar();
    } else if (key == "lookat") {
      if (values.size() != 3) throw std::invalid_argument("default_camera_config['lookat'] must hold 3 numbers");
      c.lookat = std::array<double, 3>{values[0], values[1], values[2]};
    } else if (key == "trackbodyid") {
      c.trackbodyid = integer();
    } else if (key == "fixedcamid") {
      c.fixedcamid = integer();
    } else if (key == "type") {
      c.type = integer();
    } else if (key == "orthographic") {
      c.orthographic = integer();
    } else {
      throw std::invalid_argument("default_camera_config has no field '" + key +
                                  "' (an mjvCamera has: type, fixedcamid, trackbodyid, lookat, distance, azimuth, "
                                  "elevation, orthographic)");
    }
  }
  return c;
}

mjvCamera& GymCamera::for_frame(const mjModel* m, const mjData* d, int camera_id) {
  if (!initialised_) {
    mjv_defaultCamera(&cam_);  // what mujoco.MjvCamera() gives
    // OffScreenViewer._init_camera
    cam_.type = mjCAMERA_FREE;
    cam_.fixedcamid = -1;
    std::vector<double> axis(static_cast<size_t>(m->ngeom));
    for (int i = 0; i < 3; ++i) {
      for (int g = 0; g < m->ngeom; ++g) axis[static_cast<size_t>(g)] = d->geom_xpos[3 * g + i];
      cam_.lookat[i] = np_median(axis);
    }
    cam_.distance = m->stat.extent;
    // MujocoRenderer._set_cam_config
    if (config_.distance) cam_.distance = *config_.distance;
    if (config_.azimuth) cam_.azimuth = *config_.azimuth;
    if (config_.elevation) cam_.elevation = *config_.elevation;
    if (config_.lookat)
      for (int i = 0; i < 3; ++i) cam_.lookat[i] = (*config_.lookat)[static_cast<size_t>(i)];
    if (config_.trackbodyid) cam_.trackbodyid = *config_.trackbodyid;
    if (config_.fixedcamid) cam_.fixedcamid = *config_.fixedcamid;
    if (config_.type) cam_.type = *config_.type;
    if (config_.orthographic) cam_.orthographic = *config_.orthographic;
    initialised_ = true;
  }
  // OffScreenViewer.render(camera_id=...): -1 is the free camera, else a fixed model camera.
  cam_.type = camera_id == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
  cam_.fixedcamid = camera_id;
  return cam_;
}

SceneRenderer::~SceneRenderer() {
  bool current = false;
  try {
    ctx_->begin();  // GL objects are freed in their own context
    current = true;
  } catch (const std::exception&) {
    // The context is gone already: someone terminated the EGL display this process shares
    // (MuJoCo's Python EGL backend does at exit). Its GL objects went with it; free the rest.
  }
  for (auto& [model, a] : assets_) {
    if (current) mjr_freeContext(&a->con);
    mjv_freeScene(&a->scene);
  }
  if (current) ctx_->end();
}

void SceneRenderer::drop_freed_models() {
  const uint64_t freed = shared_models_freed();
  if (freed == freed_seen_) return;
  freed_seen_ = freed;
  for (auto it = assets_.begin(); it != assets_.end();) {
    if (it->second->serial != model_serial(it->first)) {
      mjr_freeContext(&it->second->con);
      mjv_freeScene(&it->second->scene);
      it = assets_.erase(it);
    } else {
      ++it;
    }
  }
}

SceneRenderer::ModelAssets& SceneRenderer::assets(const mjModel* m, int width, int height, int max_geom) {
  drop_freed_models();  // a freed model's assets never serve another model at its address
  auto it = assets_.find(m);
  if (it == assets_.end()) {
    auto a = std::make_unique<ModelAssets>();
    mjv_defaultScene(&a->scene);
    mjv_makeScene(m, &a->scene, max_geom > 0 ? max_geom : max_geom_);
    mjr_defaultContext(&a->con);
    try {
      std::lock_guard<std::mutex> lock(g_make_context_mu);
      mjr_makeContext(m, &a->con, mjFONTSCALE_150);
      if (!a->con.offFBO) throw std::runtime_error("MuJoCo could not create its offscreen framebuffer");
    } catch (...) {
      mjr_freeContext(&a->con);
      mjv_freeScene(&a->scene);
      throw;
    }
    a->serial = model_serial(m);
    it = assets_.emplace(m, std::move(a)).first;
  }
  ModelAssets& a = *it->second;
  // Gymnasium grows (never shrinks) the model's offscreen size to the requested frame.
  const int want_w = std::max(m->vis.global.offwidth, width);
  const int want_h = std::max(m->vis.global.offheight, height);
  if (a.con.offWidth < want_w || a.con.offHeight < want_h)
    mjr_resizeOffscreen(std::max(a.con.offWidth, want_w), std::max(a.con.offHeight, want_h), &a.con);
  mjr_setBuffer(mjFB_OFFSCREEN, &a.con);
  return a;
}

void SceneRenderer::upload_hfield(const mjModel* vis_model, const mjModel* m, int hfield, uint64_t terrain,
                                  const SceneOptions& scene) {
  ModelAssets& a = assets(vis_model, 1, 1, scene.max_geom);
  if (a.terrain == terrain) return;
  mjr_uploadHField(m, &a.con, hfield);
  a.terrain = terrain;
}

void SceneRenderer::render(const mjModel* vis_model, const mjModel* m, const mjData* d, mjvCamera& cam, int width,
                           int height, uint8_t* rgb, const SceneOptions& scene) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("frame size must be positive");
  if (!defaults_set_) {
    mjv_defaultOption(&opt_);
    mjv_defaultPerturb(&pert_);
    defaults_set_ = true;
  }
  ModelAssets& a = assets(vis_model, width, height, scene.max_geom);
  mjv_updateScene(m, const_cast<mjData*>(d), scene.option ? scene.option : &opt_, &pert_, &cam, mjCAT_ALL, &a.scene);
  const mjrRect viewport{0, 0, width, height};
  mjr_render(viewport, &a.scene, &a.con);
  const size_t row = static_cast<size_t>(width) * kRgbChannels;
  scratch_.resize(row * static_cast<size_t>(height));
  mjr_readPixels(scratch_.data(), nullptr, viewport, &a.con);
  for (int y = 0; y < height; ++y)
    std::memcpy(rgb + row * static_cast<size_t>(y), scratch_.data() + row * static_cast<size_t>(height - 1 - y), row);
}

}  // namespace envhive::mujoco
