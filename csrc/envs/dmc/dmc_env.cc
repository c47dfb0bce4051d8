#include "dmc_env.h"

#include <limits>
#include <stdexcept>

#include "../mujoco/render/gl_context.h"

namespace envhive::dmc {

namespace {
void delete_model(mjModel* m) {
  if (m) mj_deleteModel(m);
}

// The most frames from_pixels stacks.
constexpr int64_t kMaxFrameStack = 64;

// dm_control's MjvScene(model) size: max(1000, _estimate_max_renderable_geoms(model)).
int scene_max_geom(const mjModel& m) {
  const int frames = std::max({m.nbody, m.ngeom, m.nsite, m.ncam, m.nlight});
  const int estimate = 3 * frames + 4 * m.ngeom + 3 * m.nbody + m.nsite + m.ntendon + m.njnt + m.nu + m.nskin + m.ncam +
                       m.nlight;
  return std::max(1000, estimate);
}

// dm_control's MjvOption: mjv_defaultOption with the rangefinders' rays hidden.
mjvOption dm_control_option() {
  mjvOption o;
  mjv_defaultOption(&o);
  o.flags[mjVIS_RANGEFINDER] = 0;
  return o;
}
}  // namespace

ConfigField fully_observable_field() {
  return {"fully_observable", true,
          "dm_control's fully_observable: observe the hand, the objects and the target; False: the arm's "
          "joints and touch sensors only (to pair with pixels)."};
}
ConfigField num_poles_field(int64_t default_poles) {
  return {"num_poles", default_poles, "dm_control's num_poles: poles chained on the cart (the model is rebuilt)."};
}
ConfigField sparse_field() { return {"sparse", false, "dm_control's sparse: reward 1 inside the bounds, else 0."}; }

std::vector<ConfigField> common_fields(const DmcTask& t) {
  std::vector<ConfigField> fields = {
      {"time_limit", t.time_limit,
       "Episode length in seconds of physics time (dm_control's time_limit; inf: none). The episode ends "
       "truncated (discount 1) after ceil(time_limit / control timestep) steps."},
      {"n_sub_steps", int64_t{t.n_sub_steps},
       "Physics steps per control step (dm_control's n_sub_steps; default: the suite's, from its "
       "control_timestep)."},
      {"frame_skip", int64_t{1},
       "Action repeat: each step applies the action this many control steps, rewards summed (stops where "
       "the episode ends)."},
      {"flatten", false,
       "One float64 Box of every observation key's values, in dm_control's key order (what Shimmy's "
       "users and SB3 get); default a Dict of the keys, as dm_control's observation dict."},
      {"random", int64_t{-1},
       "dm_control's task_kwargs['random']: env i's RandomState seed is random + i, in place of the pool's "
       "seed (-1: the pool's seeds)."},
      {"from_pixels", false,
       "Observe frames: a 'pixels' key of uint8 frames drawn as dm_control's physics.render(height, width, "
       "camera_id) after every reset and step (dm_control's pixels wrapper)."},
      {"height", int64_t{84}, "Frame height of pixel observations and render() (at most the model's offheight)."},
      {"width", int64_t{84}, "Frame width of pixel observations and render() (at most the model's offwidth)."},
      {"camera_id", int64_t{0}, "The model camera frames are drawn from (-1: the free camera)."},
      {"pixels_only", true, "from_pixels: the frames alone; False: the task's keys, then 'pixels'."},
      {"frame_stack", int64_t{1},
       "The last frame_stack observations, oldest first (after a reset, the first repeated): from_pixels, the "
       "frames stacked along the channels (state keys, pixels_only=False, are the current ones); else each state "
       "key stacked along a new first axis, (frame_stack, *shape), as EnvPool stacks them."},
      {"channels_first", false, "from_pixels: frames as (3 * frame_stack, H, W) instead of (H, W, 3 * frame_stack)."},
  };
  fields.insert(fields.end(), t.kwargs.begin(), t.kwargs.end());
  return fields;
}

Params read_params(const DmcTask& t, const Config& c) {
  Params p;
  p.task = t;
  const auto declared = [&c](const char* name) { return c.values().count(name) != 0; };
  if (declared("fully_observable")) p.fully_observable = c.flag("fully_observable");
  if (declared("sparse")) p.sparse = c.flag("sparse");
  ModelKwargs model_kwargs;
  if (declared("num_poles")) {
    constexpr int64_t kMaxPoles = 50;
    p.num_poles = c.integer("num_poles");
    if (p.num_poles < 1 || p.num_poles > kMaxPoles)
      throw std::invalid_argument("num_poles must be in [1, " + std::to_string(kMaxPoles) + "], got " +
                                  std::to_string(p.num_poles));
    model_kwargs.emplace_back("num_poles", p.num_poles);
  }
  p.model = task_model(t.domain, t.task, model_kwargs);
  p.flatten = c.flag("flatten");
  const int64_t n_sub_steps = c.integer_in("n_sub_steps", 1, mujoco::kMaxPhysicsSteps, " (physics steps per control step)");
  const int64_t frame_skip = c.integer_in("frame_skip", 1, mujoco::kMaxPhysicsSteps, " (control steps per env step)");
  if (frame_skip * n_sub_steps > mujoco::kMaxPhysicsSteps)  // each is at most 1e5: no overflow
    throw std::invalid_argument("frame_skip * n_sub_steps (" + std::to_string(frame_skip) + " * " +
                                std::to_string(n_sub_steps) + " = " + std::to_string(frame_skip * n_sub_steps) +
                                " physics steps per env step) must be at most " +
                                std::to_string(mujoco::kMaxPhysicsSteps));
  const double time_limit = c.real("time_limit");
  if (!(time_limit > 0)) throw std::invalid_argument("time_limit must be > 0 (inf: none), got " + std::to_string(time_limit));
  p.random = c.integer("random");
  if (p.random < -1 || p.random > int64_t{0xffffffff})
    throw std::invalid_argument("random must be a seed in [0, 2**32 - 1] (or -1: the pool's seeds), got " +
                                std::to_string(p.random));
  const mjModel& m = *p.model.model;
  const auto bounded = [&c](const char* name, int64_t lo, int64_t hi, const std::string& why) {
    const int64_t v = c.integer(name);
    if (v < lo || v > hi)
      throw std::invalid_argument(std::string(name) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "]" + why + ", got " + std::to_string(v));
    return static_cast<int>(v);
  };
  // dm_control's Camera refuses frames larger than the model's offscreen buffer and unknown cameras.
  const std::string task = " (dm_control " + t.domain + "/" + t.task + ")";
  p.height = bounded("height", 1, m.vis.global.offheight, " (the model's offscreen framebuffer height" + task + ")");
  p.width = bounded("width", 1, m.vis.global.offwidth, " (the model's offscreen framebuffer width" + task + ")");
  p.camera_id = bounded("camera_id", -1, m.ncam - 1, " (the free camera -1, or one of the model's " +
                                                         std::to_string(m.ncam) + " cameras" + task + ")");
  p.from_pixels = c.flag("from_pixels");
  p.pixels_only = c.flag("pixels_only");
  p.channels_first = c.flag("channels_first");
  p.frame_stack = bounded("frame_stack", 1, kMaxFrameStack, "");
  if (p.flatten && p.from_pixels && !p.pixels_only)
    throw std::invalid_argument(
        "flatten=True makes the observation one Box: with from_pixels it is the frames, so pixels_only must be True");
  p.stack_state = p.frame_stack > 1 && !p.from_pixels;
  if (p.stack_state && p.flatten)
    throw std::invalid_argument("frame_stack > 1 stacks each state key along a new first axis (frame_stack, *shape): "
                                "give flatten=False (a Dict of the keys), or from_pixels=True");
  p.n_sub_steps = static_cast<int>(n_sub_steps);
  p.frame_skip = static_cast<int>(frame_skip);
  p.step_limit = std::isinf(time_limit) ? kInf : time_limit / (p.model.model->opt.timestep * p.n_sub_steps);
  return p;
}

Spaces dmc_spaces(const Params& p, const ObsLeaves& leaves) {
  const mjModel& m = *p.model.model;
  Spaces s;
  if (p.from_pixels) {
    // Frames are drawn while stepping: no GL here is envhive.RenderError now, not an EnvError later.
    mujoco::GlPlatform::get();
    const SpaceSpec pixels = SpaceSpec::box(DType::kUInt8, p.pixels_shape(), {0}, {255});
    if (p.flatten) {
      s.observation = pixels;
    } else {
      std::vector<std::pair<std::string, SpaceSpec>> items;
      if (!p.pixels_only)
        for (const ObsLeaf& leaf : leaves)
          items.emplace_back(leaf.name, SpaceSpec::box(DType::kFloat64, p.state_shape(leaf.shape), {-kInf}, {kInf}));
      items.emplace_back("pixels", pixels);
      s.observation = SpaceSpec::dict(std::move(items));
    }
  } else if (p.flatten) {
    int64_t size = 0;
    for (const ObsLeaf& leaf : leaves) size += leaf.count();
    s.observation = SpaceSpec::box(DType::kFloat64, {size}, {-kInf}, {kInf});
  } else {
    std::vector<std::pair<std::string, SpaceSpec>> items;
    for (const ObsLeaf& leaf : leaves)
      items.emplace_back(leaf.name, SpaceSpec::box(DType::kFloat64, p.state_shape(leaf.shape), {-kInf}, {kInf}));
    s.observation = SpaceSpec::dict(std::move(items));
  }
  std::vector<double> low(static_cast<size_t>(m.nu), -mjMAXVAL), high(static_cast<size_t>(m.nu), mjMAXVAL);
  for (int i = 0; i < m.nu; ++i) {
    if (!m.actuator_ctrllimited[i]) continue;
    low[i] = m.actuator_ctrlrange[2 * i];
    high[i] = m.actuator_ctrlrange[2 * i + 1];
  }
  s.action = SpaceSpec::box(DType::kFloat64, {m.nu}, low, high);
  // render(): the same camera; played back at one frame per agent step, as Gymnasium's render_fps
  const double fps = std::nearbyint(1.0 / (m.opt.timestep * p.n_sub_steps * p.frame_skip));
  // A GL context and the model's uploaded assets per rendering thread: a few threads are plenty on a
  // CPU (llvmpipe spreads one frame over every core), as for the MuJoCo family.
  constexpr int64_t kRenderThreads = 4;
  s.render = {.height = p.height,
              .width = p.width,
              .fps = std::isfinite(fps) && fps > 0 ? static_cast<int64_t>(fps) : 0,
              .threads = kRenderThreads};
  return s;
}

DmcEnv::DmcEnv(const Params& p, int env_id)
    : m_(p.model.model.get()),
      lease_(lease_task_model(p.model)),
      shared_(p.model.model),
      no_actuation_(p.model.no_actuation),
      env_id_(env_id),
      random_kwarg_(p.random),
      n_sub_steps_(p.n_sub_steps),
      frame_skip_(p.frame_skip),
      step_limit_(p.step_limit),
      height_(p.height),
      width_(p.width),
      camera_id_(p.camera_id),
      from_pixels_(p.from_pixels),
      pixels_only_(p.from_pixels && p.pixels_only),
      channels_first_(p.channels_first),
      frame_stack_(p.frame_stack),
      option_(dm_control_option()),
      max_geom_(scene_max_geom(*p.model.model)) {
  mujoco::install_handlers();
  mujoco::MujocoScope scope;
  d_ = mj_makeData(m_);
  if (!d_) throw std::runtime_error("mj_makeData failed");
  warnings_before_.resize(mjNWARNING);
  if (from_pixels_) frames_.resize(static_cast<size_t>(frame_stack_) * static_cast<size_t>(height_) * width_ * kRgbChannels);
  stack_state_ = p.stack_state;
}

void DmcEnv::set_observation_layout(const ObsLeaves& leaves, bool flatten) {
  leaf_counts_.clear();
  for (const ObsLeaf& leaf : leaves) leaf_counts_.push_back(leaf.count());
  if (flatten) {
    int64_t size = 0;
    for (const int64_t c : leaf_counts_) size += c;
    leaf_counts_.assign(1, size);
  }
}

DmcEnv::~DmcEnv() {
  if (d_) mj_deleteData(d_);
  delete_model(own_);
}

void DmcEnv::seed(uint64_t s) {
  // The pool seeds every env once when it is built: task_kwargs["random"] replaces that seed.
  if (!seeded_ && random_kwarg_ >= 0) s = static_cast<uint64_t>(random_kwarg_) + static_cast<uint64_t>(env_id_);
  seeded_ = true;
  random_.seed(s);
}

void DmcEnv::seed_from_os() {
  if (!seeded_ && random_kwarg_ >= 0) return seed(0);
  seeded_ = true;
  random_.seed_from_os();
}

mjModel* DmcEnv::own_model() {
  if (!own_) {
    own_ = mj_copyModel(nullptr, shared_.get());
    if (!own_) throw std::runtime_error("mj_copyModel failed");
    m_ = own_;
  }
  return own_;
}

int DmcEnv::id(mjtObj type, const char* name) const {
  const int i = mj_name2id(m_, type, name);
  if (i < 0) throw std::invalid_argument(std::string("the model has no ") + mju_type2Str(type) + " named '" + name + "'");
  return i;
}

void DmcEnv::forward_without_actuation() {
  if (own_) {
    const int flags = own_->opt.disableflags;
    own_->opt.disableflags |= mjDSBL_ACTUATION;
    mj_forward(own_, d_);
    own_->opt.disableflags = flags;
  } else {
    mj_forward(no_actuation_.get(), d_);
  }
}

void DmcEnv::reset() {
  mujoco::MujocoScope scope;
  step_count_ = 0;
  mj_resetData(m_, d_);
  forward_without_actuation();  // Physics.reset (a PhysicsError there is ignored)
  initialize_episode();
  for (int i = 0; i < mjNWARNING; ++i) warnings_before_[i] = d_->warning[i].number;
  forward_without_actuation();  // Physics.after_reset
  check_warnings();
  if (from_pixels_) capture_frame(true);
  if (stack_state_) capture_state(true);
}

void DmcEnv::before_step(const double* action) { std::memcpy(d_->ctrl, action, sizeof(double) * static_cast<size_t>(m_->nu)); }

void DmcEnv::check_warnings() const {
  for (int i = 0; i < mjNWARNING; ++i)
    if (d_->warning[i].number > warnings_before_[i])
      throw std::runtime_error(std::string("dm_control PhysicsError: physics state is invalid (MuJoCo warning ") +
                               std::to_string(i) + ": " + mju_warningText(i, d_->warning[i].lastinfo) + ")");
}

void DmcEnv::physics_step(int n) {
  for (int i = 0; i < mjNWARNING; ++i) warnings_before_[i] = d_->warning[i].number;
  if (m_->opt.integrator != mjINT_RK4) {
    mj_step2(m_, d_);
    for (int i = 1; i < n; ++i) {
      cancellation_point();  // long steps give way to close() and Ctrl-C (core/cancel.h)
      mj_step(m_, d_);
    }
  } else {
    for (int i = 0; i < n; ++i) {
      cancellation_point();
      mj_step(m_, d_);
    }
  }
  mj_step1(m_, d_);
  check_warnings();
}

StepResult DmcEnv::step(const void* action) {
  mujoco::MujocoScope scope;
  const double* a = static_cast<const double*>(action);
  StepResult r;
  for (int k = 0; k < frame_skip_; ++k) {
    before_step(a);
    physics_step(n_sub_steps_);
    r.reward += reward();
    ++step_count_;
    if (static_cast<double>(step_count_) >= step_limit_) {
      r.truncated = true;
      break;
    }
    if (terminated()) {
      r.terminated = true;
      break;
    }
  }
  if (from_pixels_) capture_frame(false);
  if (stack_state_) capture_state(false);
  return r;
}

void DmcEnv::capture_state(bool first) {
  int64_t total = 0;
  for (const int64_t c : leaf_counts_) total += c;
  const auto size = static_cast<size_t>(total);
  if (states_.empty()) states_.resize(static_cast<size_t>(frame_stack_) * size);
  state_newest_ = first ? 0 : (state_newest_ + 1) % frame_stack_;
  void* row = states_.data() + static_cast<size_t>(state_newest_) * size;
  ObsWriter w(&row, &total, 1);  // every key's values in dm_control's order, one after another
  observe(w);
  w.finish();
  if (first)
    for (int k = 1; k < frame_stack_; ++k) std::memcpy(states_.data() + k * size, states_.data(), size * sizeof(double));
}

void DmcEnv::write_state_stack(void* const* dst) const {
  size_t total = 0;
  for (const int64_t c : leaf_counts_) total += static_cast<size_t>(c);
  size_t offset = 0;
  for (size_t i = 0; i < leaf_counts_.size(); ++i) {
    const auto count = static_cast<size_t>(leaf_counts_[i]);
    auto* leaf = static_cast<double*>(dst[i]);
    for (int k = 0; k < frame_stack_; ++k) {  // oldest first
      const size_t slot = static_cast<size_t>((state_newest_ + 1 + k) % frame_stack_);
      std::memcpy(leaf + static_cast<size_t>(k) * count, states_.data() + slot * total + offset, count * sizeof(double));
    }
    offset += count;
  }
}

void DmcEnv::draw(uint8_t* rgb, RenderSlot& slot) {
  mujoco::MujocoScope scope;
  auto& renderer = slot.state<mujoco::SceneRenderer>([] {
    return std::make_unique<mujoco::SceneRenderer>(mujoco::GlPlatform::get().create_context(), 1000);
  });
  const mujoco::SceneOptions scene{.option = &option_, .max_geom = max_geom_};
  before_draw(renderer, scene);
  // Camera.__init__: a default MjvCamera, fixed on camera_id, or the free camera's defaults.
  mjvCamera camera;
  mjv_defaultCamera(&camera);
  camera.fixedcamid = camera_id_;
  if (camera_id_ == -1) {
    camera.type = mjCAMERA_FREE;
    mjv_defaultFreeCamera(m_, &camera);
  } else {
    camera.type = mjCAMERA_FIXED;
  }
  renderer.render(shared_.get(), m_, d_, camera, width_, height_, rgb, scene);
}

void DmcEnv::capture_frame(bool first) {
  const size_t bytes = static_cast<size_t>(height_) * width_ * kRgbChannels;
  newest_ = first ? 0 : (newest_ + 1) % frame_stack_;
  RenderSlot& slot = thread_render_slot();
  struct EndFrame {  // give the thread back the GL context it had, whatever happens
    RenderSlot& slot;
    ~EndFrame() { slot.end(); }
  } end{slot};
  draw(frames_.data() + static_cast<size_t>(newest_) * bytes, slot);
  if (first)
    for (int k = 1; k < frame_stack_; ++k) std::memcpy(frames_.data() + k * bytes, frames_.data(), bytes);
}

void DmcEnv::write_pixels(uint8_t* dst) const {
  const size_t pixels = static_cast<size_t>(height_) * width_;
  const size_t bytes = pixels * kRgbChannels;
  for (int k = 0; k < frame_stack_; ++k) {  // oldest first
    const uint8_t* frame = frames_.data() + static_cast<size_t>((newest_ + 1 + k) % frame_stack_) * bytes;
    if (channels_first_) {  // (3k, H, W): frame k's channel c is plane 3k + c
      for (int c = 0; c < kRgbChannels; ++c) {
        uint8_t* plane = dst + (static_cast<size_t>(k) * kRgbChannels + c) * pixels;
        for (size_t i = 0; i < pixels; ++i) plane[i] = frame[i * kRgbChannels + c];
      }
    } else if (frame_stack_ == 1) {
      std::memcpy(dst, frame, bytes);
    } else {  // (H, W, 3k): each pixel's channels, frame after frame
      const size_t stride = static_cast<size_t>(frame_stack_) * kRgbChannels;
      for (size_t i = 0; i < pixels; ++i) std::memcpy(dst + i * stride + k * kRgbChannels, frame + i * kRgbChannels, kRgbChannels);
    }
  }
}

void DmcEnv::randomize_limited_and_rotational_joints() {
  for (int j = 0; j < m_->njnt; ++j) {
    const int type = m_->jnt_type[j];
    const double lo = m_->jnt_range[2 * j], hi = m_->jnt_range[2 * j + 1];
    double* qpos = d_->qpos + m_->jnt_qposadr[j];
    if (m_->jnt_limited[j]) {
      if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
        qpos[0] = random_.uniform(lo, hi);
      } else if (type == mjJNT_BALL) {
        // random_limited_quaternion(random, range_max)
        double axis[3];
        for (double& v : axis) v = random_.standard_normal();
        const double norm = npk::norm(axis, 3);
        for (double& v : axis) v /= norm;
        const double angle = random_.random_sample() * hi;
        mju_axisAngle2Quat(qpos, axis, angle);
      }
    } else if (type == mjJNT_HINGE) {
      qpos[0] = random_.uniform(-npcompat::kPi, npcompat::kPi);
    } else if (type == mjJNT_BALL) {
      double quat[4];
      for (double& v : quat) v = random_.standard_normal();
      const double norm = npk::norm(quat, 4);
      for (int i = 0; i < 4; ++i) qpos[i] = quat[i] / norm;
    } else if (type == mjJNT_FREE) {
      double quat[4];
      for (double& v : quat) v = random_.random_sample();  // dm_control's rand, not randn (kept for its benchmarks)
      const double norm = npk::norm(quat, 4);
      for (int i = 0; i < 4; ++i) qpos[3 + i] = quat[i] / norm;
    }
  }
}

}  // namespace envhive::dmc
