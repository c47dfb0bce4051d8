#include "mujoco_env.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <set>

extern "C" {
#include <numpy/random/bitgen.h>
// numpy's Generator.standard_normal kernel (numpy/random/lib/libnpyrandom.a, numpy's public
// random C-API); declared here because distributions.h pulls in Python.h.
double random_standard_normal(bitgen_t* bitgen_state);
}

namespace envhive::mujoco {

namespace {

std::mutex g_mu;  // guards everything below
std::string g_assets_dir;
std::map<std::string, std::weak_ptr<const mjModel>> g_models;
std::set<std::string> g_warned;
constexpr size_t kMaxDistinctWarnings = 20;
// Set while this thread compiles a model a reference ships (Gymnasium's assets, dm_control's XML):
// its compile-time warnings (MuJoCo 4's deprecation of their `settotalmass`) are the reference's
// business, not the user's, and are not shown. A user's own xml_file keeps them.
thread_local bool t_reference_model = false;

// Marks the current thread as compiling a reference's model for its scope.
class ReferenceModelScope {
 public:
  explicit ReferenceModelScope(bool reference) : previous_(t_reference_model) { t_reference_model = reference; }
  ~ReferenceModelScope() { t_reference_model = previous_; }
  ReferenceModelScope(const ReferenceModelScope&) = delete;
  ReferenceModelScope& operator=(const ReferenceModelScope&) = delete;

 private:
  bool previous_;
};

// > 0 while this thread does envhive's MuJoCo work (MujocoScope).
thread_local int t_envhive_depth = 0;
// The handlers envhive's replaced (dm_control's, mujoco's Python bindings'), for everyone else's calls.
void (*g_previous_error)(const char*) = nullptr;
void (*g_previous_warning)(const char*) = nullptr;

// > 0 while this thread runs a previous handler from one of ours: if that handler is another envhive
// module's (a plug-in with MuJoCo tasks of its own) that handed the message back to us, we handle
// it rather than forward it again.
thread_local int t_forwarding = 0;

// Runs the previous handler for a call outside envhive's own work; false when there is none, or
// when this thread is already inside one (a loop between two modules' handlers).
bool forward(void (*previous)(const char*), const char* msg) {
  if (t_envhive_depth != 0 || previous == nullptr || t_forwarding != 0) return false;
  ++t_forwarding;
  struct Done {
    ~Done() { --t_forwarding; }
  } done;
  previous(msg);
  return true;
}

[[noreturn]] void on_error(const char* msg) {
  forward(g_previous_error, msg);  // a handler of mju_error must not return; if it does, we throw
  throw MujocoError(std::string("MuJoCo error: ") + msg);
}

void on_warning(const char* msg) {
  if (forward(g_previous_warning, msg)) return;
  if (t_reference_model) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_warned.size() >= kMaxDistinctWarnings || !g_warned.insert(msg).second) return;
  std::fprintf(stderr, "envhive: MuJoCo warning: %s\n", msg);
  if (g_warned.size() == kMaxDistinctWarnings)
    std::fprintf(stderr, "envhive: further MuJoCo warnings are not shown\n");
}

void check_scales(const std::string& name, const std::vector<double>& v, int count, const char* what,
                  bool positive) {
  if (v.empty() || (v.size() != 1 && v.size() != static_cast<size_t>(count)))
    throw std::invalid_argument("reset option '" + name + "' needs 1 value or one per " + what + " (" +
                                std::to_string(count) + "), got " + std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x) || (positive ? x <= 0.0 : x < 0.0))
      throw std::invalid_argument("reset option '" + name + "' must be " + (positive ? "> 0" : ">= 0") +
                                  " and finite, got " + std::to_string(x));
}

bool all_ones(const std::vector<double>& v) {
  for (double x : v)
    if (x != 1.0) return false;
  return true;
}

double scale_at(const std::vector<double>& v, int i) { return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)]; }

}  // namespace

void install_handlers() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (mju_user_error != &on_error) {
    g_previous_error = mju_user_error;
    mju_user_error = &on_error;
  }
  if (mju_user_warning != &on_warning) {
    g_previous_warning = mju_user_warning;
    mju_user_warning = &on_warning;
  }
}

MujocoScope::MujocoScope() { ++t_envhive_depth; }
MujocoScope::~MujocoScope() { --t_envhive_depth; }

void set_assets_dir(std::string dir) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_assets_dir = std::move(dir);
}

const std::string& assets_dir() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_assets_dir;
}

std::string resolve_model_path(const std::string& xml_file) {
  namespace fs = std::filesystem;
  std::string path;
  if (xml_file.empty()) throw std::invalid_argument("xml_file must not be empty");
  if (xml_file[0] == '/' || xml_file[0] == '.') {
    path = xml_file;
  } else if (xml_file[0] == '~') {
    const char* home = std::getenv("HOME");
    path = std::string(home ? home : "") + xml_file.substr(1);
  } else {
    const std::string& dir = assets_dir();
    if (dir.empty())
      throw std::invalid_argument("xml_file '" + xml_file +
                                  "': Gymnasium's MuJoCo assets folder was not found; pass an absolute path");
    path = (fs::path(dir) / xml_file).string();
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw std::invalid_argument("xml_file: file " + path + " does not exist");
  return path;
}

ModelPtr load_model(const std::string& xml_file) {
  namespace fs = std::filesystem;
  install_handlers();
  const std::string path = resolve_model_path(xml_file);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
  const std::string key = path + "|" + std::to_string(size) + "|" + std::to_string(mtime);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto cached = g_models[key].lock()) return cached;
  }
  char error[1024] = "";
  mjModel* raw = nullptr;
  try {
    const std::string& dir = assets_dir();
    MujocoScope scope;
    ReferenceModelScope quiet(!dir.empty() && path.rfind(dir + "/", 0) == 0);  // one of Gymnasium's own
    raw = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  } catch (const MujocoError& e) {
    throw std::invalid_argument("could not load MuJoCo model " + path + ": " + e.what());
  }
  if (!raw) throw std::invalid_argument("could not load MuJoCo model " + path + ": " + error);
  ModelPtr model = shared_model(raw);
  std::lock_guard<std::mutex> lock(g_mu);
  if (auto cached = g_models[key].lock()) return cached;  // another thread won the race
  g_models[key] = model;
  return model;
}

ModelPtr compile_model(const std::string& xml, const std::vector<std::pair<std::string, std::string>>& assets,
                       const std::string& what) {
  install_handlers();
  // As mujoco.MjModel.from_xml_string(xml, assets): the XML is one more file of a VFS holding the
  // assets, under a name none of them has.
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  std::string name = "model_.xml";
  for (const auto& [asset, _] : assets)
    if (asset == name) name = "_" + name;
  char error[1024] = "";
  mjModel* raw = nullptr;
  try {
    for (const auto& [asset, bytes] : assets)
      mj_addBufferVFS(&vfs, asset.c_str(), bytes.data(), static_cast<int>(bytes.size()));
    mj_addBufferVFS(&vfs, name.c_str(), xml.data(), static_cast<int>(xml.size()));
    MujocoScope scope;
    ReferenceModelScope quiet(true);  // the XML a reference built (dm_control's)
    raw = mj_loadXML(name.c_str(), &vfs, error, sizeof(error));
  } catch (const MujocoError& e) {
    mj_deleteVFS(&vfs);
    throw std::invalid_argument("could not load MuJoCo model " + what + ": " + e.what());
  }
  mj_deleteVFS(&vfs);
  if (!raw) throw std::invalid_argument("could not load MuJoCo model " + what + ": " + error);
  return shared_model(raw);
}

namespace {
std::mutex g_live_mu;
std::unordered_map<const mjModel*, uint64_t> g_live;  // guarded by g_live_mu
uint64_t g_next_serial = 1;                          // guarded by g_live_mu
std::atomic<uint64_t> g_freed{0};
}  // namespace

ModelPtr shared_model(mjModel* raw) {
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    g_live[raw] = g_next_serial++;
  }
  return ModelPtr(raw, [](const mjModel* m) {
    {
      std::lock_guard<std::mutex> lock(g_live_mu);
      g_live.erase(m);
    }
    g_freed.fetch_add(1, std::memory_order_release);
    mj_deleteModel(const_cast<mjModel*>(m));
  });
}

uint64_t model_serial(const mjModel* m) {
  std::lock_guard<std::mutex> lock(g_live_mu);
  const auto it = g_live.find(m);
  return it == g_live.end() ? 0 : it->second;
}

uint64_t shared_models_freed() { return g_freed.load(std::memory_order_acquire); }

double standard_normal(Pcg64& rng) {
  bitgen_t bitgen;
  bitgen.state = &rng;
  bitgen.next_uint64 = [](void* s) -> uint64_t { return static_cast<Pcg64*>(s)->next_u64(); };
  // numpy's PCG64 hands out the halves of a buffered draw; the normal kernel never asks for one.
  bitgen.next_uint32 = [](void* s) -> uint32_t { return static_cast<uint32_t>(static_cast<Pcg64*>(s)->next_u64()); };
  bitgen.next_double = [](void* s) -> double { return static_cast<Pcg64*>(s)->next_double(); };
  bitgen.next_raw = bitgen.next_uint64;
  return random_standard_normal(&bitgen);
}

Spaces mujoco_spaces(const mjModel& m, int64_t obs_size) {
  Spaces s;
  const double inf = std::numeric_limits<double>::infinity();
  s.observation = SpaceSpec::box(DType::kFloat64, {obs_size}, {-inf}, {inf});
  std::vector<double> low, high;
  for (int i = 0; i < m.nu; ++i) {
    low.push_back(f32(m.actuator_ctrlrange[2 * i]));
    high.push_back(f32(m.actuator_ctrlrange[2 * i + 1]));
  }
  s.action = SpaceSpec::box(DType::kFloat32, {m.nu}, low, high);
  return s;
}

std::vector<std::pair<std::string, std::string>> physics_reset_options() {
  return {
      {"body_mass_scale",
       "Scale each body's mass and rotational inertia (a scalar, or one value per body including the world "
       "body 0); > 0; stays in effect until set again (1 restores the model)."},
      {"geom_friction_scale",
       "Scale each geom's friction coefficients (sliding, torsional, rolling; a scalar or one value per geom); "
       ">= 0; stays in effect until set again."},
      {"actuator_gear_scale",
       "Scale each actuator's gear (a scalar or one value per actuator); > 0; stays in effect until set again."},
  };
}

CommonParams common_params(const Config& c, const std::string& xml_default, int frame_skip_default) {
  CommonParams p;
  const auto& v = c.values();
  p.xml_file = v.count("xml_file") && !c.text("xml_file").empty() ? c.text("xml_file") : xml_default;
  const int64_t fs =
      v.count("frame_skip") ? c.integer_in("frame_skip", 1, kMaxPhysicsSteps, " (MuJoCo steps per env step)")
                            : frame_skip_default;
  p.frame_skip = static_cast<int>(fs);
  return p;
}

std::pair<double, double> range_param(const Config& c, const std::string& name) {
  const auto& v = c.reals(name);
  if (v.size() != 2)
    throw std::invalid_argument(name + " must be a pair (low, high), got " + std::to_string(v.size()) + " values");
  return {v[0], v[1]};
}

std::vector<ConfigField> render_fields(const MujocoVariant& variant) {
  std::vector<ConfigField> f;
  f.push_back({"width", int64_t{kDefaultFrameSide}, "Frame width in pixels (render_mode='rgb_array')."});
  f.push_back({"height", int64_t{kDefaultFrameSide}, "Frame height in pixels (render_mode='rgb_array')."});
  f.push_back({"camera_id", int64_t{-1},
               "Model camera to render from; -1 (or None): the free camera Gymnasium sets up. Not with camera_name."});
  f.push_back({"camera_name", std::string(), "Model camera to render from, by name; '' (or None): camera_id's."});
  if (variant.v5)
    f.push_back({"default_camera_config", variant.camera,
                 "mjvCamera fields of the free camera (type, fixedcamid, trackbodyid, lookat, distance, azimuth, "
                 "elevation, orthographic); None: none. Default: Gymnasium's DEFAULT_CAMERA_CONFIG of the task."});
  f.push_back({"max_geom", int64_t{kDefaultMaxGeom}, "Most geoms a frame draws (MjvScene maxgeom)."});
  return f;
}

RenderParams render_params(const Config& c, const MujocoVariant& variant) {
  RenderParams p;
  const auto bounded = [&](const char* name, int64_t lo, int64_t hi) {
    const int64_t v = c.integer(name);
    if (v < lo || v > hi)
      throw std::invalid_argument(std::string(name) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "], got " + std::to_string(v));
    return static_cast<int>(v);
  };
  p.width = bounded("width", 1, kMaxRenderSide);
  p.height = bounded("height", 1, kMaxRenderSide);
  p.camera_id = bounded("camera_id", -1, kMaxCameraId);
  p.camera_name = c.text("camera_name");
  if (p.camera_id != -1 && !p.camera_name.empty())
    throw std::invalid_argument("camera_id and camera_name cannot both be given (camera_id=" +
                                std::to_string(p.camera_id) + ", camera_name='" + p.camera_name + "')");
  p.camera = GymCameraConfig::from_table(variant.v5 ? c.table("default_camera_config") : variant.camera);
  p.max_geom = bounded("max_geom", 1, kMaxMaxGeom);
  return p;
}

RenderSpec render_spec(const mjModel& m, int frame_skip, const RenderParams& p) {
  // int(np.round(1.0 / self.dt)): round half to even, as nearbyint in the default rounding mode.
  const double fps = std::nearbyint(1.0 / (m.opt.timestep * frame_skip));
  // A GL context and a model's uploaded assets per rendering thread (tens of MiB, ~0.5 s to make);
  // on a CPU llvmpipe already spreads one frame over every core, so a few threads are plenty.
  constexpr int64_t kRenderThreads = 4;
  return {.height = p.height,
          .width = p.width,
          .fps = std::isfinite(fps) && fps > 0 ? static_cast<int64_t>(fps) : 0,
          .threads = kRenderThreads};
}

MujocoEnv::MujocoEnv(ModelPtr model, int frame_skip)
    : m_(model.get()), frame_skip_(frame_skip), shared_(std::move(model)) {
  install_handlers();
  MujocoScope scope;
  d_ = mj_makeData(m_);
  if (!d_) throw std::runtime_error("mj_makeData failed");
  init_qpos_.assign(m_->qpos0, m_->qpos0 + m_->nq);  // Gymnasium: data.qpos right after MjData()
  init_qvel_.assign(static_cast<size_t>(m_->nv), 0.0);
  qpos_buf_.resize(static_cast<size_t>(m_->nq));
  qvel_buf_.resize(static_cast<size_t>(m_->nv));
  dt_ = m_->opt.timestep * frame_skip_;
}

MujocoEnv::~MujocoEnv() {
  if (d_) mj_deleteData(d_);
  if (own_) mj_deleteModel(own_);
}

void MujocoEnv::reset() {
  MujocoScope scope;
  prepared_ = false;
  if (physics_dirty_) apply_physics_options();
  mj_resetData(m_, d_);
  reset_model();
}

void MujocoEnv::set_reset_option(const std::string& name, const std::vector<double>& values) {
  const mjModel& m = *shared_;
  if (name == "body_mass_scale") {
    check_scales(name, values, m.nbody, "body", true);
    mass_scale_ = values;
  } else if (name == "geom_friction_scale") {
    check_scales(name, values, m.ngeom, "geom", false);
    friction_scale_ = values;
  } else if (name == "actuator_gear_scale") {
    check_scales(name, values, m.nu, "actuator", true);
    gear_scale_ = values;
  } else {
    Env::set_reset_option(name, values);
  }
  physics_dirty_ = true;
}

void MujocoEnv::apply_physics_options() {
  physics_dirty_ = false;
  if (all_ones(mass_scale_) && all_ones(friction_scale_) && all_ones(gear_scale_)) {
    m_ = shared_.get();
    if (own_) {
      mj_deleteModel(own_);
      own_ = nullptr;
    }
    return;
  }
  own_ = mj_copyModel(own_, shared_.get());  // into the existing copy when there is one
  if (!own_) throw std::runtime_error("mj_copyModel failed");
  for (int b = 0; b < own_->nbody; ++b) {
    const double s = scale_at(mass_scale_, b);
    own_->body_mass[b] *= s;
    for (int k = 0; k < 3; ++k) own_->body_inertia[3 * b + k] *= s;
  }
  for (int g = 0; g < own_->ngeom; ++g) {
    const double s = scale_at(friction_scale_, g);
    for (int k = 0; k < 3; ++k) own_->geom_friction[3 * g + k] *= s;
  }
  for (int a = 0; a < own_->nu; ++a) {
    const double s = scale_at(gear_scale_, a);
    for (int k = 0; k < 6; ++k) own_->actuator_gear[6 * a + k] *= s;
  }
  mj_setConst(own_, d_);  // derived constants (subtree masses, inverse weights, actuator_acc0, ...)
  m_ = own_;
}

void MujocoEnv::reset_with_noise(double scale, bool normal_qvel) {
  const double lo = -scale, hi = scale;
  for (int i = 0; i < m_->nq; ++i) qpos_buf_[i] = init_qpos_[i] + uniform(lo, hi);
  if (normal_qvel) {
    for (int i = 0; i < m_->nv; ++i) qvel_buf_[i] = init_qvel_[i] + scale * standard_normal();
  } else {
    for (int i = 0; i < m_->nv; ++i) qvel_buf_[i] = init_qvel_[i] + uniform(lo, hi);
  }
  set_state(qpos_buf_.data(), qvel_buf_.data());
}

int MujocoEnv::resolve_camera() const {
  const mjModel* m = shared_.get();
  const auto cameras = [m] {
    if (m->ncam == 0) return std::string("the model has no camera");
    std::string names = "the model's cameras:";
    for (int i = 0; i < m->ncam; ++i) {
      const char* name = mj_id2name(m, mjOBJ_CAMERA, i);
      names += (i ? ", " : " ") + std::to_string(i) + " '" + (name ? name : "") + "'";
    }
    return names;
  };
  if (!render_.camera_name.empty()) {
    const int id = mj_name2id(m, mjOBJ_CAMERA, render_.camera_name.c_str());
    if (id < 0) throw std::invalid_argument("camera_name '" + render_.camera_name + "' is not a camera: " + cameras());
    return id;
  }
  if (render_.camera_id >= m->ncam)
    throw std::invalid_argument("camera_id " + std::to_string(render_.camera_id) + " is not a camera: " + cameras());
  return render_.camera_id;
}

void MujocoEnv::render(uint8_t* rgb, RenderSlot& slot) {
  MujocoScope scope;
  const int camera_id = resolve_camera();
  SceneRenderer& r = slot.state<SceneRenderer>([this] {
    return std::make_unique<SceneRenderer>(GlPlatform::get().create_context(), render_.max_geom);
  });
  r.render(shared_.get(), m_, d_, camera_.for_frame(m_, d_, camera_id), render_.width, render_.height, rgb);
}

int MujocoEnv::body_id(const char* name) const {
  const int id = mj_name2id(m_, mjOBJ_BODY, name);
  if (id < 0) throw std::invalid_argument(std::string("the model has no body named '") + name + "'");
  return id;
}

}  // namespace envhive::mujoco
