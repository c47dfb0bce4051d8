// MuJoCo frames as Gymnasium's MujocoRenderer (gymnasium/envs/mujoco/mujoco_rendering.py,
// OffScreenViewer) makes them, pixel for pixel, from an envhive env's mjModel / mjData.
//
// Gymnasium's sequence, reproduced here:
//   context: MjrContext(model, mjFONTSCALE_150), offscreen buffer of max(model offwidth, width) x
//            max(model offheight, height), mjr_setBuffer(mjFB_OFFSCREEN);
//   scene:   MjvScene(model, maxgeom=max_geom), default MjvOption and MjvPerturb;
//   camera:  see GymCamera below;
//   frame:   mjv_updateScene(..., mjCAT_ALL), mjr_render(viewport (0, 0, width, height)),
//            mjr_readPixels, rows flipped (OpenGL's origin is bottom-left).
// The data is drawn exactly as stepped: no mj_forward first (after mj_step the kinematics are
// those the last substep started from, and that is what Gymnasium draws).
#pragma once

#include <mujoco/mujoco.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "../../../core/render.h"
#include "../../../core/spec.h"
#include "gl_context.h"

namespace envhive::mujoco {

// A task's `default_camera_config` (Gymnasium's DEFAULT_CAMERA_CONFIG of each env file): the
// mjvCamera fields it sets once the camera is made. Unset fields keep what OffScreenViewer's
// _init_camera chose.
struct GymCameraConfig {
  std::optional<double> distance, azimuth, elevation;
  std::optional<std::array<double, 3>> lookat;
  std::optional<int> trackbodyid, fixedcamid, type, orthographic;

  // From a config dict ({"distance": 4.0, "lookat": [0, 0, 1.15], ...}); std::invalid_argument
  // naming the key for a field mjvCamera does not have or a value of the wrong length.
  static GymCameraConfig from_table(const ConfigTable& table);
};

// The camera of one env, as Gymnasium keeps it: made at the env's FIRST render and never again (not
// at reset): type FREE, lookat = per-axis np.median of data.geom_xpos at that moment, distance =
// model.stat.extent, azimuth 90 / elevation -45 (mjv_defaultCamera), then the config's fields. So a
// task without `lookat` in its config (HalfCheetah, Ant, Swimmer...) looks where the body was when
// rendering started; the free camera does not follow it (trackbodyid is set, but unused by FREE).
class GymCamera {
 public:
  explicit GymCamera(GymCameraConfig config = {}) : config_(std::move(config)) {}
  // The camera for this frame of `d` (the state being rendered): camera_id -1 is the free camera,
  // >= 0 a fixed model camera (OffScreenViewer.render(camera_id=...)).
  mjvCamera& for_frame(const mjModel* m, const mjData* d, int camera_id);
  bool initialised() const { return initialised_; }

 private:
  GymCameraConfig config_;
  mjvCamera cam_{};
  bool initialised_ = false;
};

// numpy's np.median of n doubles (mean of the two middle values when n is even); NaN in -> NaN out.
double np_median(std::vector<double>& values);

// How a frame's scene is made beyond its camera (a family whose reference draws differently from
// Gymnasium's, as dm_control does): the visualisation options (null: mjv_defaultOption's) and the
// scene's geom capacity, fixed by the model's first frame (0: the renderer's max_geom).
struct SceneOptions {
  const mjvOption* option = nullptr;
  int max_geom = 0;
};

// Draws frames with one GL context: a pool thread's render state (RenderSlot). begin() makes its
// context current for a render call, end() gives the thread back what it had. Per model it keeps an
// mjrContext (textures, meshes, the offscreen buffer) and an mjvScene, made by the first frame of
// that model: the model must outlive the renderer (the pool frees its render slots before its envs).
class SceneRenderer final : public RenderState {
 public:
  SceneRenderer(std::unique_ptr<GlContext> ctx, int max_geom) : ctx_(std::move(ctx)), max_geom_(max_geom) {}
  ~SceneRenderer() override;
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;

  void begin() override { ctx_->begin(); }
  void end() noexcept override { ctx_->end(); }

  // One frame of `d` into `rgb` (height x width x 3, top row first). `vis_model` is the model whose
  // GPU assets (meshes, textures) to use: the env's shared model (a domain-randomised copy has the
  // same visuals), so one upload serves every env of a pool. Between begin() and end().
  void render(const mjModel* vis_model, const mjModel* m, const mjData* d, mjvCamera& cam, int width, int height,
              uint8_t* rgb, const SceneOptions& scene = {});

  // Heightfield `hfield` of `m` (an env's copy of `vis_model` whose terrain it redraws) into the GPU
  // assets of `vis_model`, unless the terrain numbered `terrain` (unique in the process) is there
  // already: envs sharing the assets draw their own terrains. Between begin() and end(), before the
  // frame; `scene` as for that frame.
  void upload_hfield(const mjModel* vis_model, const mjModel* m, int hfield, uint64_t terrain,
                     const SceneOptions& scene = {});

 private:
  struct ModelAssets {
    mjrContext con;
    mjvScene scene;
    uint64_t terrain = 0;  // the terrain last uploaded (upload_hfield); 0: the model's own
    uint64_t serial = 0;   // the model's model_serial() when they were made
  };
  ModelAssets& assets(const mjModel* m, int width, int height, int max_geom);
  // With the context current: frees the assets of models freed since (their serial is gone).
  void drop_freed_models();
  uint64_t freed_seen_ = 0;  // shared_models_freed() at the last drop_freed_models

  std::unique_ptr<GlContext> ctx_;
  int max_geom_;
  std::unordered_map<const mjModel*, std::unique_ptr<ModelAssets>> assets_;
  mjvOption opt_{};
  mjvPerturb pert_{};
  bool defaults_set_ = false;
  std::vector<uint8_t> scratch_;
};

}  // namespace envhive::mujoco
