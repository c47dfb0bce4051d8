// The base of Gymnasium's MuJoCo tasks: one mjData per env over an mjModel loaded once and
// shared read-only by every env that uses it (mjModel is never written while stepping).
//
// What makes envhive's trajectories equal to Gymnasium's (same seed, same actions):
//  - the same libmujoco (the one the `mujoco` package ships), the same XML from Gymnasium's
//    assets, and the same call sequence: mj_resetData, set qpos/qvel, mj_forward on reset;
//    ctrl = action, frame_skip x mj_step, mj_rnePostConstraint on step;
//  - the same random draws: Generator.uniform from csrc/core/rng.h and Generator.standard_normal
//    from numpy's own C implementation (libnpyrandom, linked at build time), both fed by the
//    env's PCG64 stream;
//  - reward terms computed with numpy's operand order and dtypes (a float32 action gives a
//    float32 control cost; sums use numpy's pairwise summation).
//
// Domain randomisation (reset options) needs different model parameters per env. An env that
// receives one gets its own mjModel copy (mj_copyModel, on first use) with the scales applied and
// mj_setConst rerun; scales of exactly 1 everywhere drop the copy and return to the shared model.
//
// Rendering (render_mode="rgb_array") draws Gymnasium's frames with MuJoCo's own renderer on a
// headless GL context per pool thread (render/: the GL platform is loaded by dlopen at the first
// frame, EGL else OSMesa). The kwargs width, height, camera_id, camera_name, max_geom and (v5)
// default_camera_config are Gymnasium's; every task declares them (TaskTraits below).
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../core/cancel.h"
#include "../../core/task.h"
#include "../../core/numpy_compat.h"
#include "../../core/numpy_kernels.h"
#include "render/scene_renderer.h"

namespace envhive::mujoco {

// An error raised by the MuJoCo library (mju_error), thrown from its error handler.
class MujocoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using ModelPtr = std::shared_ptr<const mjModel>;

// --- library plumbing (mujoco_env.cc) ---

// MuJoCo's error and warning handlers are one pair per process, shared by everyone who loads
// libmujoco (dm_control installs Python callbacks that log through absl, and abort on an error).
// envhive's take the pair and keep the previous one: inside envhive's own MuJoCo work (a
// MujocoScope on this thread) mju_error becomes a C++ exception (MujocoError) and mju_warning a
// line on stderr (each distinct message once; none for the models a reference ships), so MuJoCo
// never writes MUJOCO_LOG.TXT nor exits the process; anywhere else they go to the previous
// handlers, so dm_control's and mujoco's own calls behave as without envhive. Called when a model
// is compiled and when an env is made (another library may have taken the pair since).
void install_handlers();
// Marks this thread as doing envhive's MuJoCo work for its scope (nestable; a few ns).
class MujocoScope {
 public:
  MujocoScope();
  ~MujocoScope();
  MujocoScope(const MujocoScope&) = delete;
  MujocoScope& operator=(const MujocoScope&) = delete;
};
// Gymnasium's MuJoCo asset folder (gymnasium/envs/mujoco/assets), found at import.
void set_assets_dir(std::string dir);
const std::string& assets_dir();
// Gymnasium's expand_model_path: paths starting with '/' or '.' are used as given, '~' is
// expanded, anything else is a file in the asset folder. Throws if the file does not exist.
std::string resolve_model_path(const std::string& xml_file);
// The compiled model of `xml_file`, loaded once and shared while anyone holds it (the cache is
// keyed by resolved path, size and modification time). Throws std::invalid_argument on errors.
ModelPtr load_model(const std::string& xml_file);
// The model compiled from an XML string and its assets ({file name, contents}: the files it
// includes, meshes, textures), as mujoco.MjModel.from_xml_string(xml, assets) compiles it; not
// cached. `what` names it in errors. Throws std::invalid_argument on errors.
ModelPtr compile_model(const std::string& xml, const std::vector<std::pair<std::string, std::string>>& assets,
                       const std::string& what);
// A compiled model shared by envs (load_model, compile_model, DeepMind Control's models): freed
// with its last holder, so each gets a serial while it lives. A thread's renderer keys its GPU
// assets by model and serial and drops those of freed models (a thread's own render slot outlives
// pools), never reusing them for another model at the same address.
ModelPtr shared_model(mjModel* raw);
uint64_t model_serial(const mjModel* m);  // 0: not a shared model
uint64_t shared_models_freed();           // how many shared models were freed so far
// numpy's Generator.standard_normal() on envhive's PCG64 stream (numpy's ziggurat, bit for bit).
double standard_normal(Pcg64& rng);

// np.linalg.norm of a contiguous float64 vector, through numpy's own BLAS (core/numpy_kernels.h).
inline double np_norm(const double* a, size_t n) { return npk::norm(a, n); }

// numpy-compatible arithmetic (core/numpy_compat.h), used unqualified by every MuJoCo task.
using npcompat::f32;
using npcompat::np_clip;
using npcompat::np_sum;
using npcompat::np_sum_squares;
using npcompat::np_sum_squares_clipped;

// Writes consecutive float64 values into an observation row.
struct ObsWriter {
  double* p;
  explicit ObsWriter(void* dst) : p(static_cast<double*>(dst)) {}
  void put(const mjtNum* src, size_t n) {
    std::memcpy(p, src, n * sizeof(double));
    p += n;
  }
  void put_clipped(const mjtNum* src, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; ++i) *p++ = np_clip(src[i], lo, hi);
  }
  void put(double v) { *p++ = v; }
};

inline void put_info(void* dst, double v) { std::memcpy(dst, &v, sizeof(v)); }
inline void put_info(void* dst, const mjtNum* src, size_t n) { std::memcpy(dst, src, n * sizeof(double)); }
// put_info of each value into dst[0], dst[1], ...: the order of the task's Spaces::infos.
inline void put_infos(void* const* dst, std::initializer_list<double> values) {
  for (const double v : values) put_info(*dst++, v);
}

// One info field of a MuJoCo task (all are float64): a bare name is a scalar, {name, n} holds
// n values (one per tendon, say).
struct Float64Info {
  const char* name;
  int64_t count = -1;  // -1: a scalar
  Float64Info(const char* n) : name(n) {}  // implicit, so a list of names reads as scalars
  Float64Info(const char* n, int64_t c) : name(n), count(c) {}
};
// The task's Spaces::infos, in the order given (the order write_info fills dst in).
inline std::vector<InfoSpec> float64_infos(std::initializer_list<Float64Info> fields) {
  std::vector<InfoSpec> infos;
  for (const Float64Info& f : fields)
    infos.push_back({f.name, DType::kFloat64, f.count < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{f.count}});
  return infos;
}

// Observation and action spaces of a MuJoCo task: Box(-inf, inf, (obs_size,), float64) and
// Box(ctrlrange, float32).
Spaces mujoco_spaces(const mjModel& m, int64_t obs_size);

// Names and docs of the reset options every MuJoCo task accepts.
std::vector<std::pair<std::string, std::string>> physics_reset_options();

// The settings every Gymnasium MuJoCo env has: the model file and the number of physics steps
// per env step (fixed by the version for v4, kwargs for v5).
struct CommonParams {
  std::string xml_file;
  int frame_skip = 1;
};
// The most physics steps (mj_step) one env step may take: a MuJoCo task's frame_skip, a DeepMind
// Control task's frame_skip x n_sub_steps (1e5 steps of a dog model: ~30 s). A long step still
// gives way to close() and Ctrl-C between physics steps (cancellation_point, core/cancel.h).
inline constexpr int64_t kMaxPhysicsSteps = 100000;
// Reads xml_file / frame_skip from the config when declared (v5), else uses the fixed values.
CommonParams common_params(const Config& c, const std::string& xml_default, int frame_skip_default);
// The declarations of those two kwargs (v5 tasks; v4 fixes them), with the task's defaults.
inline ConfigField xml_file_field(const std::string& xml_default) {
  return {"xml_file", xml_default, "MuJoCo model: a file in Gymnasium's assets or a path."};
}
inline ConfigField frame_skip_field(int64_t frame_skip_default) {
  return {"frame_skip", frame_skip_default, "MuJoCo steps per env step."};
}
// Both, for v5: the kwargs a task's config starts with (none for v4).
inline std::vector<ConfigField> model_fields(bool v5, const std::string& xml_default, int64_t frame_skip_default) {
  if (!v5) return {};
  return {xml_file_field(xml_default), frame_skip_field(frame_skip_default)};
}
// A [lo, hi] pair kwarg (e.g. healthy_z_range); throws unless it has exactly two numbers.
std::pair<double, double> range_param(const Config& c, const std::string& name);

// What registration tells a MuJoCo task: its version and Gymnasium's DEFAULT_CAMERA_CONFIG of its
// env file (v5: the default of the default_camera_config kwarg; v4: fixed).
struct MujocoVariant {
  bool v5 = true;
  ConfigTable camera;
};

// Gymnasium's MujocoEnv defaults: a 480 x 480 frame of at most 1000 geoms (MjvScene maxgeom).
inline constexpr int kDefaultFrameSide = 480;
inline constexpr int kDefaultMaxGeom = 1000;
// The largest camera_id and max_geom accepted (a model has far fewer cameras; a scene of more geoms
// would allocate gigabytes).
inline constexpr int kMaxCameraId = 1 << 20, kMaxMaxGeom = 1 << 20;

// Gymnasium's MujocoEnv render kwargs, resolved and checked (std::invalid_argument) from a config.
struct RenderParams {
  int width = kDefaultFrameSide, height = kDefaultFrameSide;
  int camera_id = -1;       // -1 and no camera_name: the free camera (Gymnasium's default)
  std::string camera_name;  // "" : none
  GymCameraConfig camera;   // default_camera_config
  int max_geom = kDefaultMaxGeom;
};
// The render kwargs' declarations (every task: width, height, camera_id, camera_name, max_geom;
// v5 also default_camera_config, whose default is the task's DEFAULT_CAMERA_CONFIG).
std::vector<ConfigField> render_fields(const MujocoVariant& variant);
RenderParams render_params(const Config& c, const MujocoVariant& variant);
// The frames a task renders: width x height, Gymnasium's render_fps = round(1 / dt).
RenderSpec render_spec(const mjModel& m, int frame_skip, const RenderParams& p);

class MujocoEnv : public Env {
 public:
  MujocoEnv(ModelPtr model, int frame_skip);
  ~MujocoEnv() override;
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;

  // mj_resetData, then the task's reset_model() (Gymnasium's MujocoEnv.reset).
  void reset() final;
  // body_mass_scale, geom_friction_scale, actuator_gear_scale: a scalar or one value per
  // body / geom / actuator; they stay in effect for later episodes until set again.
  void set_reset_option(const std::string& name, const std::vector<double>& values) override;

  // Tasks whose step reads nothing MuJoCo derives (xpos, contacts, ...) before simulating may set
  // prepare_ok_: then, with an Euler or implicit integrator, prepare() runs mj_step1 -- the
  // position and velocity stages, which do not read ctrl -- and the next step starts with
  // mj_step2. mj_step1 + mj_step2 is bit for bit mj_step for those integrators (MuJoCo's
  // documented split; RK4 would fall back to Euler, so it is excluded). A task that read xpos
  // before simulating would see it recomputed from the new qpos, so it is opt-in.
  bool can_prepare() const override { return prepare_ok_ && m_->opt.integrator != mjINT_RK4; }
  void prepare() override {
    MujocoScope scope;
    if (prepared_) return;
    mj_step1(m_, d_);
    prepared_ = true;
  }

  const mjModel* model() const { return m_; }
  // Gymnasium's init_qpos, which reset_model starts from; Gymnasium-Robotics' AntMaze moves it (robotics/).
  std::vector<double>& init_qpos() { return init_qpos_; }
  const mjData* data() const { return d_; }

  // The render kwargs (TaskTraits sets them after construction).
  void set_render_params(RenderParams p) {
    render_ = std::move(p);
    camera_ = GymCamera(render_.camera);
  }
  // Gymnasium's MujocoRenderer frame of the current state (render/scene_renderer.h), drawn by this
  // pool thread's SceneRenderer (its GL context; made by its first frame).
  void render(uint8_t* rgb, RenderSlot& slot) override;

 protected:
  virtual void reset_model() = 0;

  // data.ctrl[:] = action; mj_step frame_skip times; mj_rnePostConstraint (Gymnasium's
  // do_simulation). Tasks that never read cacc / cfrc_* may set post_constraint_ = false: it
  // only fills those outputs and does not change the trajectory.
  void do_simulation(const float* action) {
    MujocoScope scope;
    for (int i = 0; i < m_->nu; ++i) d_->ctrl[i] = static_cast<double>(action[i]);
    int i = 0;
    if (prepared_) {  // the first mj_step's mj_step1 ran in prepare()
      prepared_ = false;
      mj_step2(m_, d_);
      i = 1;
    }
    for (; i < frame_skip_; ++i) {
      cancellation_point();  // a long frame_skip gives way to close() and Ctrl-C
      mj_step(m_, d_);
    }
    if (post_constraint_) mj_rnePostConstraint(m_, d_);
  }
  // Gymnasium's set_state: qpos, qvel, then mj_forward.
  void set_state(const double* qpos, const double* qvel) {
    prepared_ = false;
    std::memcpy(d_->qpos, qpos, sizeof(double) * static_cast<size_t>(m_->nq));
    std::memcpy(d_->qvel, qvel, sizeof(double) * static_cast<size_t>(m_->nv));
    mj_forward(m_, d_);
  }
  // qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv) (or
  // s * standard_normal(nv) when `normal_qvel`), then set_state: most tasks' reset_model.
  void reset_with_noise(double scale, bool normal_qvel);
  // Gymnasium's control_cost of a float32 action: weight * np.sum(np.square(action)) stays
  // float32 (a Python float times np.float32 is np.float32 under NEP 50).
  float action_ctrl_cost(const float* action, double weight) const {
    return static_cast<float>(weight) * np_sum_squares(action, static_cast<size_t>(m_->nu));
  }
  double uniform(double low, double high) { return rng().uniform(low, high); }
  double standard_normal() { return envhive::mujoco::standard_normal(rng()); }
  int body_id(const char* name) const;
  // qpos[skip:] then qvel, the start of most tasks' observations (skip drops the root's position
  // under exclude_current_positions_from_observation).
  void put_qpos_qvel(ObsWriter& w, size_t skip) const {
    w.put(d_->qpos + skip, static_cast<size_t>(m_->nq) - skip);
    w.put(d_->qvel, static_cast<size_t>(m_->nv));
  }
  // Scratch rows for reset_model (nq / nv values).
  std::vector<double> qpos_buf_, qvel_buf_;

  const mjModel* m_ = nullptr;  // the model in use: shared, or this env's own copy
  mjData* d_ = nullptr;
  std::vector<double> init_qpos_, init_qvel_;
  int frame_skip_ = 1;
  double dt_ = 0.0;  // model.opt.timestep * frame_skip
  bool post_constraint_ = true;
  bool prepare_ok_ = false;  // see can_prepare()

 private:
  bool prepared_ = false;  // mj_step1 of the next step has run
  void apply_physics_options();

  // The model camera a frame uses: camera_id, or camera_name's id, checked against the model (-1:
  // the free camera). Resolved at the first frame, so a bad camera fails render(), not the pool.
  int resolve_camera() const;

  ModelPtr shared_;
  mjModel* own_ = nullptr;
  RenderParams render_;
  GymCamera camera_;
  std::vector<double> mass_scale_{1.0}, friction_scale_{1.0}, gear_scale_{1.0};
  bool physics_dirty_ = false;
};

}  // namespace envhive::mujoco

namespace envhive {

// A MuJoCo task E declares its kwargs for a version (config(bool v5)), reads them into its Params
// (params(config, v5)), and gets its spaces and envs from the model those Params name, loaded once
// and shared (spaces(model, params), E(model, params)). register_task passes the version.
// Every task also gets Gymnasium's render kwargs and their frames (mujoco::render_fields).
template <class E>
  requires std::derived_from<E, mujoco::MujocoEnv>
struct TaskTraits<E> {
  static std::vector<ConfigField> config(const mujoco::MujocoVariant& v) {
    std::vector<ConfigField> f = E::config(v.v5);
    for (auto& field : mujoco::render_fields(v)) f.push_back(std::move(field));
    return f;
  }
  static Spaces spaces(const Config& c, const mujoco::MujocoVariant& v) {
    const auto p = E::params(c, v.v5);
    const mujoco::ModelPtr model = mujoco::load_model(p.common.xml_file);
    Spaces s = E::spaces(*model, p);
    s.render = mujoco::render_spec(*model, p.common.frame_skip, mujoco::render_params(c, v));
    return s;
  }
  static std::unique_ptr<Env> make(const Config& c, int /*env_id*/, const mujoco::MujocoVariant& v) {
    const auto p = E::params(c, v.v5);
    auto env = std::make_unique<E>(mujoco::load_model(p.common.xml_file), p);
    env->set_render_params(mujoco::render_params(c, v));
    return env;
  }
};

}  // namespace envhive
