// The DeepMind Control Suite's tasks on envhive's pool: dm_control's control.Environment and
// mujoco.Physics, step for step, over the libmujoco the MuJoCo family links (its model loading,
// error handlers and renderer are shared, not copied).
//
// What makes an env's episodes those of suite.load(domain, task, task_kwargs={"random": seed}):
//  - the model compiled from the suite's own XML (model_source.h: the XML and assets dm_control
//    itself builds, fetched once per process through the module's Python hook);
//  - dm_control's RandomState (core/random_state.h) seeded with the env's seed, and the task's
//    draws in the suite's order;
//  - dm_control's call sequence: reset = mj_resetData, mj_forward without actuation, the task's
//    initialize_episode, mj_forward without actuation again (Physics.reset_context); step =
//    ctrl = action, mj_step2, mj_step x (n_sub_steps - 1), mj_step1 (Physics.step, legacy_step);
//  - control.Environment's episode end: after ceil(time_limit / control_timestep) steps the episode
//    is LAST with discount 1 (a truncation here), or earlier when the task terminates (discount 0).
// frame_skip repeats an action (rewards summed, stopping where the episode ends: DrQ's
// ActionRepeat). A physics warning raised while stepping (dm_control's PhysicsError) throws.
//
// Frames are dm_control's Physics.render(height, width, camera_id): a fresh MjvCamera (fixed, or
// the free camera with mjv_defaultFreeCamera), dm_control's MjvOption (rangefinders hidden), a
// scene of max(1000, _estimate_max_renderable_geoms) geoms, drawn as stepped (no forward first) by
// the MuJoCo family's SceneRenderer into the model's offscreen buffer. from_pixels makes them the
// observation (dm_control's pixels.Wrapper, with DrQ's frame stack): the frame after each reset and
// each step is drawn by the thread that stepped the env, with that thread's GL context
// (thread_render_slot, core/render.h); render() draws the same camera on the pool's render slots.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "../../core/random_state.h"
#include "../../core/render.h"
#include "../../core/task.h"
#include "../mujoco/mujoco_env.h"
#include "model_source.h"
#include "rewards.h"

namespace envhive::dmc {

// A registration's view of one suite task.
struct DmcTask {
  std::string domain;  // dm_control's domain name ("cartpole")
  std::string task;    // its task name ("swingup_sparse")
  double time_limit;   // seconds (inf: no limit)
  // Physics steps per control step: control_timestep / model timestep for the tasks that pass a
  // control_timestep, else 1 (tests/families/dmc/test_dmc_alignment.py checks each against dm_control).
  int n_sub_steps = 1;
  // The task constructor's own kwargs, where the suite has them (manipulator's and stacker's
  // fully_observable, three_poles' num_poles and sparse), with the suite's defaults.
  std::vector<ConfigField> kwargs = {};
};

// The declarations of those kwargs.
ConfigField fully_observable_field();
ConfigField num_poles_field(int64_t default_poles);
ConfigField sparse_field();

// One key of a task's observation dict (Task.get_observation): its name and shape, float64.
struct ObsLeaf {
  std::string name;
  std::vector<int64_t> shape;  // {} for a scalar (np.asarray of one value)
  int64_t count() const {
    int64_t c = 1;
    for (const int64_t d : shape) c *= d;
    return c;
  }
};
using ObsLeaves = std::vector<ObsLeaf>;

// Writes consecutive float64 values into the observation's leaves, moving to the next leaf where
// one is full: a task writes its keys in dm_control's order without knowing whether they land in
// a Dict's leaves or in one flattened Box (flatten=True).
class ObsWriter {
 public:
  // leaves[i]: leaf i's row, counts[i] values.
  ObsWriter(void* const* leaves, const int64_t* counts, size_t n) : leaves_(leaves), counts_(counts), n_(n) {}
  void put(double v) {
    if (p_ == end_) next_leaf();
    *p_++ = v;
  }
  void put(const double* src, size_t n) {
    while (n > 0) {
      if (p_ == end_) next_leaf();
      const size_t k = std::min(n, static_cast<size_t>(end_ - p_));
      std::memcpy(p_, src, k * sizeof(double));
      p_ += k;
      src += k;
      n -= k;
    }
  }
  // After the task's last value: every leaf must be full (a declaration that disagrees with what
  // observe() writes is a bug, reported rather than left as garbage).
  void finish() const {
    if (p_ != end_ || (n_ > 0 && leaf_ + 1 != n_)) throw std::logic_error("dm_control task wrote a short observation");
  }

 private:
  void next_leaf() {
    if (++leaf_ >= n_) throw std::logic_error("dm_control task wrote past its observation");
    p_ = static_cast<double*>(leaves_[leaf_]);
    end_ = p_ + counts_[leaf_];
  }
  void* const* leaves_;
  const int64_t* counts_;
  size_t n_;
  size_t leaf_ = static_cast<size_t>(-1);
  double* p_ = nullptr;
  double* end_ = nullptr;
};

// The config fields every suite task has, with the task's defaults.
std::vector<ConfigField> common_fields(const DmcTask& t);

// The settings of one pool, read from its config.
struct Params {
  DmcTask task;
  TaskModel model;
  bool flatten = false;  // one Box of every key's values, in dm_control's order; else a Dict
  int n_sub_steps = 1;
  int frame_skip = 1;
  double step_limit = kInf;  // control.Environment._step_limit
  int64_t random = -1;       // task_kwargs["random"]: env i seeds random + i; -1: the pool's seeds
  // The camera of frames: pixel observations and render() (Physics.render's arguments).
  int height = 84, width = 84, camera_id = 0;
  // from_pixels: the frame is an observation key, "pixels" (after the task's keys unless
  // pixels_only), of frame_stack frames stacked along the channels, oldest first: (H, W, 3k), or
  // (3k, H, W) channel-first.
  bool from_pixels = false, pixels_only = true, channels_first = false;
  int frame_stack = 1;
  // frame_stack > 1 without from_pixels: each state key is stacked along a new first axis,
  // (frame_stack, *shape), oldest first (EnvPool's frame_stack of DMC states).
  bool stack_state = false;
  std::vector<int64_t> state_shape(const std::vector<int64_t>& shape) const {
    if (!stack_state) return shape;
    std::vector<int64_t> out{frame_stack};
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
  }
  // The task's own kwargs (DmcTask::kwargs; the suite's defaults where a task has none).
  bool fully_observable = true;
  bool sparse = false;
  int64_t num_poles = 0;  // 0: the model the task's constructor builds by default
  std::vector<int64_t> pixels_shape() const {
    const int64_t c = 3 * int64_t{frame_stack};
    return channels_first ? std::vector<int64_t>{c, height, width} : std::vector<int64_t>{height, width, c};
  }
};
Params read_params(const DmcTask& t, const Config& c);

class DmcEnv : public Env {
 public:
  DmcEnv(const Params& p, int env_id);
  ~DmcEnv() override;
  DmcEnv(const DmcEnv&) = delete;
  DmcEnv& operator=(const DmcEnv&) = delete;

  void seed(uint64_t s) override;
  void seed_from_os() override;
  void reset() final;
  StepResult step(const void* action) final;
  // The task's keys into a Dict's leaves, or into one Box (flatten); then the frames (from_pixels).
  void write_obs_leaves(void* const* dst) const final {
    if (stack_state_) {
      write_state_stack(dst);
    } else if (!pixels_only_) {
      ObsWriter w(dst, leaf_counts_.data(), leaf_counts_.size());
      observe(w);
      w.finish();
    }
    if (from_pixels_) write_pixels(static_cast<uint8_t*>(dst[pixels_only_ ? 0 : leaf_counts_.size()]));
  }
  void write_obs(void* dst) const final { write_obs_leaves(&dst); }
  // The frame of the current state (render_mode="rgb_array"), on the pool's render slot.
  void render(uint8_t* rgb, RenderSlot& slot) override { draw(rgb, slot); }
  // The observation's layout: the task's keys (E::observation), one leaf each or one flattened
  // leaf (TaskTraits sets it after construction).
  void set_observation_layout(const ObsLeaves& leaves, bool flatten);

 protected:
  // Task.initialize_episode (inside reset_context: after mj_resetData and a forward).
  virtual void initialize_episode() = 0;
  // Task.get_observation, leaf after leaf in dm_control's key order.
  virtual void observe(ObsWriter& w) const = 0;
  virtual double reward() const = 0;
  // Task.get_termination: true where it returns a discount (always 0.0 in the suite).
  virtual bool terminated() const { return false; }
  // Task.before_step: set_control(action) unless overridden.
  virtual void before_step(const double* action);

  // Physics.after_reset / forward without actuation (Model.disable('actuation')).
  void forward_without_actuation();
  // mj_forward (Physics.forward) with actuation.
  void forward() { mj_forward(m_, d_); }
  // The model this env steps: the shared one, or its own copy (own_model()).
  mjModel* own_model();

  // --- dm_control's named accessors ---
  int id(mjtObj type, const char* name) const;
  int body(const char* name) const { return id(mjOBJ_BODY, name); }
  int joint_qpos(const char* name) const { return m_->jnt_qposadr[id(mjOBJ_JOINT, name)]; }
  int joint_dof(const char* name) const { return m_->jnt_dofadr[id(mjOBJ_JOINT, name)]; }
  int sensor_adr(const char* name) const { return m_->sensor_adr[id(mjOBJ_SENSOR, name)]; }
  // sensordata of a named sensor (its first value).
  const double* sensor(const char* name) const { return d_->sensordata + m_->sensor_adr[id(mjOBJ_SENSOR, name)]; }
  int sensor_dim(const char* name) const { return m_->sensor_dim[id(mjOBJ_SENSOR, name)]; }
  // data.xmat[body, 'zz'] etc.: row r, column c of the body's rotation.
  double xmat(int body, int r, int c) const { return d_->xmat[9 * body + 3 * r + c]; }
  // physics.position() / velocity() / control(): qpos / qvel / ctrl.
  void put_velocity(ObsWriter& w) const { w.put(d_->qvel, static_cast<size_t>(m_->nv)); }
  RandomState& random() { return random_; }
  // rewards.tolerance(physics.control(), margin=1, value_at_margin=0, sigmoid='quadratic').mean().
  double small_control_mean() const {
    const double sum = npcompat::np_sum<double>(static_cast<size_t>(m_->nu), [this](size_t i) {
      return tolerance(d_->ctrl[i], {.margin = 1, .sigmoid = Sigmoid::kQuadratic, .value_at_margin = 0},
                       Arg::array(static_cast<size_t>(m_->nu)));
    });
    return sum / m_->nu;
  }
  // randomizers.randomize_limited_and_rotational_joints(physics, random).
  void randomize_limited_and_rotational_joints();

  const mjModel* m_;
  mjData* d_ = nullptr;

  // Physics.step(n) with legacy_step: mj_step2, mj_step x (n - 1), mj_step1; a MuJoCo warning
  // raised meanwhile throws (Physics.check_invalid_state).
  void physics_step(int n);

  // The model every env of the task shares (an env's own copy has the same visuals).
  const mjModel* shared_model() const { return shared_.get(); }
  // Before each frame, with `renderer` current: a task whose copy of the model changes what the GPU
  // holds uploads it (quadruped escape's terrain).
  virtual void before_draw(mujoco::SceneRenderer& /*renderer*/, const mujoco::SceneOptions& /*scene*/) {}

 private:
  // Physics.check_invalid_state: a MuJoCo warning raised since warnings_before_ throws.
  void check_warnings() const;
  // Physics.render(height, width, camera_id) into `rgb` with the renderer of `slot`.
  void draw(uint8_t* rgb, RenderSlot& slot);
  // A new frame of the stack, drawn on this thread (thread_render_slot); after a reset every frame
  // of the stack is the first one (DrQ's FrameStack).
  void capture_frame(bool first);
  // The stack, oldest first, in the pixels leaf's layout.
  void write_pixels(uint8_t* dst) const;
  // stack_state: the task's keys now into the state stack (after a reset, every entry); each key's
  // stack, oldest first, into its leaf.
  void capture_state(bool first);
  void write_state_stack(void* const* dst) const;

  std::shared_ptr<const void> lease_;  // keeps the task's model cached while this env lives
  ModelPtr shared_;
  mjModel* own_ = nullptr;   // this env's copy, when a task edits its model (fish's target)
  ModelPtr no_actuation_;    // the shared model with actuation disabled (forward_without_actuation)
  RandomState random_;
  int env_id_;
  int64_t random_kwarg_;
  bool seeded_ = false;
  int n_sub_steps_, frame_skip_;
  double step_limit_;
  int64_t step_count_ = 0;
  std::vector<int> warnings_before_;
  std::vector<int64_t> leaf_counts_;  // values per observation leaf (one leaf when flattened)
  int height_, width_, camera_id_;
  bool from_pixels_, pixels_only_, channels_first_;
  int frame_stack_;
  std::vector<uint8_t> frames_;  // frame_stack frames of height x width x 3 (from_pixels)
  int newest_ = 0;               // the newest frame's index in frames_
  bool stack_state_ = false;
  std::vector<double> states_;   // stack_state: frame_stack observations of every key's values
  int state_newest_ = 0;
  mjvOption option_;             // dm_control's MjvOption
  int max_geom_;                 // dm_control's MjvScene size for this model
};

// A task's spaces: the observation a Dict of its keys (float64 Boxes, unbounded, in dm_control's
// order) or, flattened, one Box of them all, and the pixels key (from_pixels); the action float64
// from the actuators' ctrlrange (dm_control's action_spec; +-mjMAXVAL where not ctrllimited); the
// frames render() draws.
Spaces dmc_spaces(const Params& p, const ObsLeaves& leaves);

}  // namespace envhive::dmc

namespace envhive {

// A suite task class E declares its observation keys, observation(model, params), and a
// constructor E(Params, env_id, DmcTask); the family adds the common kwargs, loads the model once
// and lays the keys out as a Dict or one Box.
template <class E>
  requires std::derived_from<E, dmc::DmcEnv>
struct TaskTraits<E> {
  static std::vector<ConfigField> config(const dmc::DmcTask& t) { return dmc::common_fields(t); }
  static Spaces spaces(const Config& c, const dmc::DmcTask& t) {
    const dmc::Params p = dmc::read_params(t, c);
    return dmc::dmc_spaces(p, E::observation(*p.model.model, p));
  }
  static std::unique_ptr<Env> make(const Config& c, int env_id, const dmc::DmcTask& t) {
    const dmc::Params p = dmc::read_params(t, c);
    auto env = std::make_unique<E>(p, env_id, t);
    env->set_observation_layout(E::observation(*p.model.model, p), p.flatten);
    return env;
  }
};

}  // namespace envhive
