#include "native_pool.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#include <numpy/arrayobject.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>
#include <thread>

#if defined(__linux__)
#include <unistd.h>
#endif

#include "../core/pool.h"
#include "spec_types.h"

namespace envhive::bindings {

namespace {

namespace nb = nanobind;

// A timeout this long (about 31 years) or longer is no deadline.
constexpr double kNoDeadlineSeconds = 1e9;
// render(): frame blocks its recycler keeps for reuse (the frames a caller holds, and the next call's),
// also the blocks counted against memory; the most env ids an error message lists.
constexpr size_t kFrameBlocksKept = 2;
constexpr size_t kIdsNamed = 10;

int npy_type(DType d) {
  switch (d) {
    case DType::kBool: return NPY_BOOL;
    case DType::kUInt8: return NPY_UINT8;
    case DType::kInt32: return NPY_INT32;
    case DType::kInt64: return NPY_INT64;
    case DType::kFloat32: return NPY_FLOAT32;
    case DType::kFloat64: return NPY_FLOAT64;
  }
  return NPY_VOID;
}

// Raises `type(message)` (an envhive error type, or `fallback` before envhive installed them).
[[noreturn]] void raise(const nb::object& type, PyObject* fallback, const std::string& message) {
  PyObject* t = type.is_valid() ? type.ptr() : fallback;
  PyErr_SetString(t, message.c_str());
  throw nb::python_error();
}

// Owner of a batch block on the Python side: returns it to the pool's recycler when the last
// array viewing it is gone (the pool itself may be long closed by then).
struct BlockOwner {
  std::shared_ptr<BlockRecycler> recycler;
  std::byte* block;
};

PyObject* make_owner(const std::shared_ptr<BlockRecycler>& recycler, std::byte* block) {
  auto* owner = new BlockOwner{recycler, block};
  PyObject* cap = PyCapsule_New(owner, "envhive.batch", [](PyObject* c) {
    auto* o = static_cast<BlockOwner*>(PyCapsule_GetPointer(c, "envhive.batch"));
    o->recycler->release(o->block);
    delete o;
  });
  if (!cap) {
    recycler->release(block);
    delete owner;
    throw nb::python_error();
  }
  return cap;
}

// A numpy array viewing `data`, kept alive by `owner`.
nb::object view(PyObject* owner, const void* data, int typenum, int nd, const npy_intp* dims) {
  PyObject* arr = PyArray_New(&PyArray_Type, nd, const_cast<npy_intp*>(dims), typenum, nullptr,
                              const_cast<void*>(data), 0, NPY_ARRAY_CARRAY, nullptr);
  if (!arr) throw nb::python_error();
  Py_INCREF(owner);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return nb::steal(arr);
}

std::string dtype_text(PyArrayObject* a) {
  return nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))));
}

class NativePool {
 public:
  NativePool(const std::string& task_id, nb::dict config, const PoolOptions& options, std::vector<uint64_t> seeds) {
    const TaskDef* task = task_registry().find(task_id);
    if (!task) throw nb::key_error(("unknown task id '" + task_id + "'").c_str());
    const Config cfg = config_from_py(*task, config);
    task_id_ = task_id;
    render_images_ = task->meta.render_images;
    {
      nb::gil_scoped_release release;  // building envs can take long (Atari: ~85 ms each)
      pool_ = std::make_unique<Pool>(*task, cfg, options, seeds);
    }
    const auto& sp = pool_->spaces();
    const int rows = pool_->options().batch_size;
    obs_type_ = npy_type(sp.observation.dtype);
    obs_dims_.push_back(rows);
    for (auto d : sp.observation.shape) obs_dims_.push_back(d);
    for (const auto& info : sp.infos) {
      info_names_.push_back(nb::str(info.name.c_str()));
      final_info_masks_.push_back(nb::str(("_" + info.name).c_str()));
      std::vector<npy_intp> dims{rows};
      for (auto d : info.shape) dims.push_back(d);
      info_dims_.push_back(dims);
    }
    const int n = pool_->options().num_envs;
    all_ids_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all_ids_[static_cast<size_t>(i)] = i;
    stamp_.assign(static_cast<size_t>(n), 0);
  }

  ~NativePool() {
    if (pool_) {
      nb::gil_scoped_release release;
      pool_->close();
    }
  }

  const Spaces& spaces() const { return pool_->spaces(); }
  const PoolOptions& options() const { return pool_->options(); }
  bool closed() const { return pool_->closed() || closing_.load(std::memory_order_acquire); }
  int outstanding() const { return pool_->outstanding(); }

  // Any thread. Waits for a call in flight in another thread to return (it raises
  // PoolClosedError), then stops the threads. Idempotent.
  void close() {
    if (pool_->closed()) return;
    closing_.store(true, std::memory_order_seq_cst);  // calls starting from now raise "closed"
    pool_->request_close();
    if (!try_enter()) {
      nb::gil_scoped_release release;
      while (!try_enter()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    {
      nb::gil_scoped_release release;
      pool_->close();
    }
    leave();
  }

  void send(nb::handle actions, nb::handle env_id, bool partial) {
    Call call(*this);
    send_unguarded(actions, env_id, partial);
  }

  nb::tuple recv(nb::handle timeout) {
    Call call(*this);
    const std::optional<double> seconds = parse_timeout(timeout);
    check_can_receive();
    wait_batch(seconds, "recv()");
    return take_batch();
  }

  nb::tuple step(nb::handle actions, nb::handle env_id, bool partial) {
    Call call(*this);
    send_unguarded(actions, env_id, partial);
    check_can_receive();
    wait_batch(std::nullopt, "step()");
    return take_batch();
  }

  // Drains anything in flight, resets the envs in `mask` (all when None), seeding those in `seeds`
  // (env id -> seed) and applying `options` (name -> {env id: values}). Sync mode returns every
  // env's observation (those not reset report their current one); async mode the next batch.
  nb::tuple reset(nb::handle mask, nb::dict seeds, nb::dict options) {
    Call call(*this);
    queue_reset(mask, seeds, options, true);
    wait_batch(std::nullopt, "reset()");
    nb::tuple full = take_batch();
    return nb::make_tuple(full[0], full[4]);
  }

  // Queues the reset without waiting; recv() collects the results.
  void async_reset(nb::handle mask, nb::dict seeds, nb::dict options) {
    Call call(*this);
    queue_reset(mask, seeds, options, false);
  }

  // The frames of the envs in `env_ids` (None: every env), drawn on the pool's threads without the
  // GIL, as one (n, height, width, 3) uint8 array viewing a block that Python owns from now on (no
  // later call writes it). Envs in flight cannot be drawn (ValueError naming them), nor envs never
  // reset (ResetNeeded); a frame an env's renderer cannot draw raises RenderError.
  nb::object render(nb::handle env_ids) {
    Call call(*this);
    const RenderSpec& rs = pool_->spaces().render;
    if (!rs.available())
      throw nb::value_error((task_id_ + " has no renderer: it declares no frames to draw").c_str());
    if (!pool_->options().render)
      throw nb::value_error("this pool was made without render_mode; make it with render_mode='rgb_array' to render");
    const std::vector<int32_t> ids = render_ids(env_ids);
    load_render_images();
    const size_t bytes = rs.frame_bytes() * ids.size();
    check_frame_bytes(bytes);
    const std::shared_ptr<BlockRecycler>& recycler = frame_recycler(bytes);
    std::byte* blk = recycler->acquire();
    PyObject* owner_raw = make_owner(recycler, blk);
    nb::object owner = nb::steal(owner_raw);
    std::vector<RenderFailure> failures;
    bool interrupted = false;
    WaitResult r;
    {
      nb::gil_scoped_release release;
      r = pool_->render(ids.data(), ids.size(), reinterpret_cast<uint8_t*>(blk), failures,
                        [&] { return check_signals(interrupted); });
    }
    finish_wait(r, "render()");
    if (!failures.empty()) raise_render_failures(failures);
    const npy_intp dims[4] = {static_cast<npy_intp>(ids.size()), rs.height, rs.width, kRgbChannels};
    return view(owner_raw, blk, NPY_UINT8, 4, dims);
  }

 private:
  // One call at a time: entered with the GIL held, so only a thread waiting inside the pool with
  // the GIL released can be found here.
  class Call {
   public:
    explicit Call(NativePool& p) : p_(p) {
      if (!p_.try_enter()) {
        if (p_.closing_.load(std::memory_order_acquire)) p_.raise_closed("");
        raise(error_types().pool_busy, PyExc_RuntimeError,
              "this envhive pool is in use by another thread (a call is waiting in it); a pool serves one "
              "thread at a time: give each thread its own pool, or serialise the calls");
      }
      if (p_.closed()) {
        p_.leave();
        p_.raise_closed("");
      }
    }
    ~Call() { p_.leave(); }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    NativePool& p_;
  };

  bool try_enter() {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void leave() { busy_.store(false, std::memory_order_release); }

  [[noreturn]] void raise_closed(const char* during) const {
    std::string msg = "this envhive pool is closed";
    if (*during) msg += std::string(" (closed by another thread while ") + during + " waited)";
    raise(error_types().pool_closed, PyExc_ValueError, msg);
  }

  static std::optional<double> parse_timeout(nb::handle timeout) {
    if (timeout.is_none()) return std::nullopt;
    PyObject* o = timeout.ptr();
    if (PyBool_Check(o) || !(PyFloat_Check(o) || PyLong_Check(o) || PyNumber_Check(o)))
      throw nb::type_error("timeout must be a number of seconds or None");
    const double t = PyFloat_AsDouble(o);
    if (t == -1.0 && PyErr_Occurred()) throw nb::python_error();
    if (std::isnan(t)) throw nb::value_error("timeout must be a number of seconds, got nan");
    if (t < 0) throw nb::value_error("timeout must be >= 0");
    if (t >= kNoDeadlineSeconds) return std::nullopt;  // inf and anything past ~31 years: no deadline
    return t;
  }

  void check_can_receive() const {
    if (pool_->outstanding() < pool_->options().batch_size) {
      std::ostringstream msg;
      msg << "recv() would wait forever: " << pool_->outstanding() << " env(s) in flight, batch_size is "
          << pool_->options().batch_size << "; send() actions (or async_reset()) first";
      throw nb::value_error(msg.str().c_str());
    }
  }

  // `partial` (sync pools): env_id may name some envs only; the others hold (kEmit: their rows
  // report the current observation, reward 0, both flags false), as a partial reset reports them.
  void send_unguarded(nb::handle actions, nb::handle env_id, bool partial) {
    const std::vector<int32_t>& ids = resolve_ids(env_id);
    const int n = pool_->options().num_envs;
    const bool holds = pool_->sync() && ids.size() != static_cast<size_t>(n);
    if (holds && !partial)
      throw nb::value_error(("sync mode (batch_size == num_envs) steps all " + std::to_string(n) +
                             " envs together; got env_id for " + std::to_string(ids.size()) +
                             ". Use batch_size < num_envs for async stepping")
                                .c_str());
    nb::object rows = convert_actions(actions, ids);
    if (pool_->never_reset() > 0)
      for (int32_t id : holds ? all_ids_ : ids)
        if (!pool_->was_reset(id))
          raise(error_types().reset_needed, PyExc_RuntimeError,
                "env " + std::to_string(id) + " has not been reset: call reset() (or async_reset() and recv()) "
                "before stepping it" + (holds ? std::string(" (a partial step of a sync pool reports every env)") : ""));
    if (pool_->options().autoreset_mode == AutoresetMode::kDisabled)
      for (int32_t id : ids)
        if (pool_->episode_over(id))
          throw nb::value_error(("env " + std::to_string(id) +
                                 " has ended its episode and autoreset_mode is 'disabled': reset it first with "
                                 "reset(options={'reset_mask': mask})")
                                    .c_str());
    const auto* data = static_cast<const std::byte*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(rows.ptr())));
    if (!holds) {
      const Command step = Command::kStep;
      pool_->dispatch(ids.data(), ids.size(), &step, 1, data);
      return;
    }
    // The stepped envs first (their action rows are in that order), then the held ones.
    held_ids_.assign(ids.begin(), ids.end());
    held_cmds_.assign(ids.size(), Command::kStep);
    ++stamp_value_;
    for (int32_t id : ids) stamp_[static_cast<size_t>(id)] = stamp_value_;
    for (int32_t id : all_ids_)
      if (stamp_[static_cast<size_t>(id)] != stamp_value_) {
        held_ids_.push_back(id);
        held_cmds_.push_back(Command::kEmit);
      }
    pool_->dispatch(held_ids_.data(), held_ids_.size(), held_cmds_.data(), held_cmds_.size(), data);
  }

  void queue_reset(nb::handle mask, nb::dict seeds, nb::dict options, bool receive) {
    const int n = pool_->options().num_envs;
    std::vector<Command> cmds(static_cast<size_t>(n), Command::kReset);
    std::vector<int32_t> ids;
    const bool partial = !mask.is_none();
    const bool drain = !partial || pool_->sync();
    if (partial) {
      const auto m = nb::cast<std::vector<bool>>(mask);
      if (m.size() != static_cast<size_t>(n))
        throw nb::value_error(("reset mask must have " + std::to_string(n) + " entries").c_str());
      for (int i = 0; i < n; ++i) {
        if (m[static_cast<size_t>(i)]) {
          ids.push_back(i);
        } else if (pool_->sync()) {
          ids.push_back(i);
          cmds[ids.size() - 1] = Command::kEmit;
          if (!pool_->was_reset(i))
            raise(error_types().reset_needed, PyExc_RuntimeError,
                  "env " + std::to_string(i) + " has not been reset: a partial reset of a sync pool reports every "
                  "env, so reset all envs first (reset() without a reset_mask)");
        }
      }
      if (!drain) {
        for (int32_t id : ids)
          if (pool_->in_flight(id))
            throw nb::value_error(
                ("cannot reset env " + std::to_string(id) + ": it is in flight; recv() it first").c_str());
        // reset() returns (obs, info) of the next batch: a step result in it would lose its reward
        // and flags.
        if (receive && pool_->steps_in_flight() > 0)
          throw nb::value_error(("reset(options={'reset_mask': ...}) of an async pool returns the next batch as "
                                 "(obs, info), so the " +
                                 std::to_string(pool_->steps_in_flight()) +
                                 " step(s) in flight would lose their rewards and flags: recv() them first")
                                    .c_str());
      }
    } else {
      ids = all_ids_;
    }
    if (drain) {
      bool interrupted = false;
      WaitResult r;
      {
        nb::gil_scoped_release release;
        r = pool_->drain([&] { return check_signals(interrupted); });
      }
      finish_wait(r, "reset()");
    }
    for (auto [k, v] : seeds) pool_->set_seed(nb::cast<int32_t>(k), nb::cast<uint64_t>(v));
    for (auto [name, per_env] : options)
      for (auto [k, v] : nb::cast<nb::dict>(per_env))
        pool_->set_reset_option(nb::cast<int32_t>(k), nb::cast<std::string>(name), nb::cast<std::vector<double>>(v));
    if (receive && pool_->outstanding() + static_cast<int>(ids.size()) < pool_->options().batch_size)
      throw nb::value_error(("resetting " + std::to_string(ids.size()) + " env(s) cannot fill a batch of " +
                             std::to_string(pool_->options().batch_size) + " with " +
                             std::to_string(pool_->outstanding()) + " others in flight; recv() would wait forever")
                                .c_str());
    pool_->dispatch(ids.data(), ids.size(), cmds.data(), ids.size(), nullptr);
  }

  static bool check_signals(bool& interrupted) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      return true;
    }
    return false;
  }

  void wait_batch(std::optional<double> timeout, const char* what) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (timeout)
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*timeout));
    bool interrupted = false;
    WaitResult r;
    {
      nb::gil_scoped_release release;
      r = pool_->wait_batch(deadline, [&] { return check_signals(interrupted); });
    }
    finish_wait(r, what);
  }

  void finish_wait(WaitResult r, const char* what) const {
    switch (r) {
      case WaitResult::kReady: return;
      case WaitResult::kInterrupted: throw nb::python_error();  // the KeyboardInterrupt (or the handler's error)
      case WaitResult::kClosed: raise_closed(what);
      case WaitResult::kTimeout:
        PyErr_SetString(PyExc_TimeoutError, "recv() timed out before a batch was ready");
        throw nb::python_error();
    }
  }

  const std::vector<int32_t>& resolve_ids(nb::handle env_id) {
    const int n = pool_->options().num_envs;
    if (env_id.is_none()) {
      for (int32_t id : all_ids_)
        if (pool_->in_flight(id))
          throw nb::value_error(("env " + std::to_string(id) +
                                 " is not awaiting an action (it is in flight); pass env_id for the envs recv() returned")
                                    .c_str());
      return all_ids_;
    }
    PyObject* arr = PyArray_FromAny(env_id.ptr(), nullptr, 0, 0, 0, nullptr);
    if (!arr) throw nb::python_error();
    nb::object holder = nb::steal(arr);
    auto* a = reinterpret_cast<PyArrayObject*>(arr);
    if (PyArray_NDIM(a) > 1) throw nb::value_error("env_id must be an int or a 1-D array of ints");
    if (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a)) throw nb::type_error("env_id must hold integers");
    PyObject* conv = PyArray_FromAny(arr, PyArray_DescrFromType(NPY_INT64), 0, 1,
                                     NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr);
    if (!conv) throw nb::python_error();
    nb::object conv_holder = nb::steal(conv);
    auto* c = reinterpret_cast<PyArrayObject*>(conv);
    const npy_intp m = PyArray_SIZE(c);
    const int64_t* v = static_cast<const int64_t*>(PyArray_DATA(c));
    ids_.resize(static_cast<size_t>(m));
    ++stamp_value_;
    for (npy_intp i = 0; i < m; ++i) {
      if (v[i] < 0 || v[i] >= n)
        throw nb::value_error(
            ("env_id " + std::to_string(v[i]) + " is out of range [0, " + std::to_string(n) + ")").c_str());
      const auto id = static_cast<int32_t>(v[i]);
      if (stamp_[static_cast<size_t>(id)] == stamp_value_)
        throw nb::value_error(("env_id " + std::to_string(id) + " appears twice in one send()").c_str());
      stamp_[static_cast<size_t>(id)] = stamp_value_;
      if (pool_->in_flight(id))
        throw nb::value_error(("env " + std::to_string(id) +
                               " is not awaiting an action: it was sent and not yet returned by recv()")
                                  .c_str());
      ids_[static_cast<size_t>(i)] = id;
    }
    return ids_;
  }

  // A C-contiguous array of the pool's action dtype with one row per id.
  nb::object convert_actions(nb::handle actions, const std::vector<int32_t>& ids) {
    const SpaceSpec& act = pool_->spaces().action;
    const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
    PyObject* arr = PyArray_FromAny(actions.ptr(), nullptr, 0, 0, 0, nullptr);
    if (!arr) throw nb::python_error();
    nb::object holder = nb::steal(arr);
    auto* a = reinterpret_cast<PyArrayObject*>(arr);
    const npy_intp n = static_cast<npy_intp>(ids.size());
    bool shape_ok = PyArray_NDIM(a) == 1 + static_cast<int>(discrete ? 0 : act.shape.size()) && PyArray_DIM(a, 0) == n;
    if (shape_ok && !discrete)
      for (size_t d = 0; d < act.shape.size(); ++d)
        shape_ok = shape_ok && PyArray_DIM(a, static_cast<int>(d + 1)) == act.shape[d];
    if (!shape_ok) {
      std::ostringstream msg;
      msg << "actions must have shape (" << n;
      if (!discrete)
        for (auto d : act.shape) msg << ", " << d;
      msg << (discrete || act.shape.empty() ? ",)" : ")") << ", got (";
      for (int d = 0; d < PyArray_NDIM(a); ++d) msg << (d ? ", " : "") << PyArray_DIM(a, d);
      msg << (PyArray_NDIM(a) == 1 ? ",)" : ")");
      throw nb::value_error(msg.str().c_str());
    }
    if (discrete) {
      if (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a))
        throw nb::type_error(
            ("actions for a Discrete action space must be integers, got dtype " + dtype_text(a)).c_str());
    } else if (!(PyArray_ISFLOAT(a) || PyArray_ISINTEGER(a)) || PyArray_ISBOOL(a)) {
      throw nb::type_error(("actions for a Box action space must be real numbers, got dtype " + dtype_text(a)).c_str());
    }
    const int target = discrete ? NPY_INT64 : npy_type(act.dtype);
    PyObject* conv = PyArray_FromAny(arr, PyArray_DescrFromType(target), 0, 0,
                                     NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr);
    if (!conv) throw nb::python_error();
    nb::object rows = nb::steal(conv);
    auto* c = reinterpret_cast<PyArrayObject*>(conv);
    if (discrete) {
      const int64_t* v = static_cast<const int64_t*>(PyArray_DATA(c));
      for (npy_intp i = 0; i < n; ++i)
        if (v[i] < act.start || v[i] >= act.start + act.n) {
          std::ostringstream msg;
          msg << "action " << v[i] << " for env " << ids[static_cast<size_t>(i)] << " is outside Discrete(" << act.n
              << (act.start ? ", start=" + std::to_string(act.start) : std::string()) << "): valid actions are "
              << act.start << ".." << act.start + act.n - 1;
          throw nb::value_error(msg.str().c_str());
        }
    } else {
      const npy_intp per = static_cast<npy_intp>(act.count());
      auto check = [&](auto* v) {
        for (npy_intp i = 0; i < n * per; ++i)
          if (!std::isfinite(v[i])) {
            std::ostringstream msg;
            msg << "action for env " << ids[static_cast<size_t>(i / per)] << " is not finite (" << v[i]
                << "); envhive rejects NaN and infinite actions";
            throw nb::value_error(msg.str().c_str());
          }
      };
      if (target == NPY_FLOAT32)
        check(static_cast<const float*>(PyArray_DATA(c)));
      else
        check(static_cast<const double*>(PyArray_DATA(c)));
    }
    return rows;
  }

  // The env ids render() draws: every env for None, else an int or 1-D array of distinct ids in
  // range; none in flight, every one reset at least once.
  std::vector<int32_t> render_ids(nb::handle env_id) {
    const int n = pool_->options().num_envs;
    std::vector<int32_t> ids;
    if (env_id.is_none()) {
      ids = all_ids_;
    } else {
      PyObject* arr = PyArray_FromAny(env_id.ptr(), nullptr, 0, 0, 0, nullptr);
      if (!arr) throw nb::python_error();
      nb::object holder = nb::steal(arr);
      auto* a = reinterpret_cast<PyArrayObject*>(arr);
      if (PyArray_NDIM(a) > 1) throw nb::value_error("env_ids must be an int or a 1-D array of ints");
      if (PyArray_SIZE(a) > 0 && (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a)))
        throw nb::type_error("env_ids must hold integers");
      PyObject* conv = PyArray_FromAny(arr, PyArray_DescrFromType(NPY_INT64), 0, 1,
                                       NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr);
      if (!conv) throw nb::python_error();
      nb::object conv_holder = nb::steal(conv);
      auto* c = reinterpret_cast<PyArrayObject*>(conv);
      const int64_t* v = static_cast<const int64_t*>(PyArray_DATA(c));
      ++stamp_value_;
      for (npy_intp i = 0; i < PyArray_SIZE(c); ++i) {
        if (v[i] < 0 || v[i] >= n)
          throw nb::value_error(
              ("env_ids: " + std::to_string(v[i]) + " is out of range [0, " + std::to_string(n) + ")").c_str());
        const auto id = static_cast<int32_t>(v[i]);
        if (stamp_[static_cast<size_t>(id)] == stamp_value_)
          throw nb::value_error(("env_ids: env " + std::to_string(id) + " appears twice").c_str());
        stamp_[static_cast<size_t>(id)] = stamp_value_;
        ids.push_back(id);
      }
    }
    std::vector<int32_t> busy;
    for (int32_t id : ids)
      if (pool_->in_flight(id)) busy.push_back(id);
    if (!busy.empty()) {
      std::ostringstream msg;
      msg << "cannot render env" << (busy.size() > 1 ? "s " : " ");
      for (size_t i = 0; i < busy.size() && i < kIdsNamed; ++i) msg << (i ? ", " : "") << busy[i];
      if (busy.size() > kIdsNamed) msg << " (and " << busy.size() - kIdsNamed << " more)";
      msg << ": in flight (sent, not yet returned by recv()); render(env_ids=...) the envs awaiting an action, "
             "or recv() them first";
      throw nb::value_error(msg.str().c_str());
    }
    if (pool_->never_reset() > 0)
      for (int32_t id : ids)
        if (!pool_->was_reset(id))
          raise(error_types().reset_needed, PyExc_RuntimeError,
                "env " + std::to_string(id) + " has not been reset: call reset() before render()");
    return ids;
  }

  // The images the task's renderer draws, read once per process (the GIL is held here).
  void load_render_images() {
    for (const auto& [name, path] : render_images_) {
      if (RenderImages::get().has(name)) continue;
      if (path.empty())
        raise(error_types().render_error, PyExc_RuntimeError,
              task_id_ + ": cannot find the image file of its renderer's '" + name +
                  "' (Gymnasium's assets folder was not found when envhive loaded)");
      const nb::object& reader = image_reader();
      if (!reader.is_valid())
        raise(error_types().render_error, PyExc_RuntimeError,
              "cannot read render image '" + name + "': no image reader was installed (import envhive first)");
      nb::object img = reader(path);
      PyObject* conv = PyArray_FromAny(img.ptr(), PyArray_DescrFromType(NPY_UINT8), 3, 3,
                                       NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
      if (!conv) throw nb::python_error();
      nb::object conv_holder = nb::steal(conv);
      auto* a = reinterpret_cast<PyArrayObject*>(conv);
      if (PyArray_DIM(a, 2) != kRgbaChannels) throw nb::value_error(("render image " + path + " is not RGBA").c_str());
      RgbaImage rgba;
      rgba.height = static_cast<int>(PyArray_DIM(a, 0));
      rgba.width = static_cast<int>(PyArray_DIM(a, 1));
      const auto* data = static_cast<const uint8_t*>(PyArray_DATA(a));
      rgba.rgba.assign(data, data + PyArray_NBYTES(a));
      RenderImages::get().put(name, std::move(rgba));
    }
  }

  // A render block must fit in memory with room to spare (as the pool checks its output batches).
  static void check_frame_bytes(size_t bytes) {
#if defined(__linux__)
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (physical > 0 && static_cast<double>(bytes) * kFrameBlocksKept > physical / 2)
      throw nb::value_error(("render(): the frames need " + std::to_string(static_cast<double>(bytes) / 1e9) +
                             " GB, too much for this machine's memory; render fewer envs at once (env_ids=...)")
                                .c_str());
#else
    (void)bytes;
#endif
  }

  // Frames blocks come from a recycler of their size (the last size asked for; blocks Python still
  // holds keep their own recycler alive).
  const std::shared_ptr<BlockRecycler>& frame_recycler(size_t bytes) {
    if (!frames_ || frames_->block_bytes() != bytes) frames_ = std::make_shared<BlockRecycler>(bytes, kFrameBlocksKept);
    return frames_;
  }

  [[noreturn]] void raise_render_failures(const std::vector<RenderFailure>& failures) {
    bool same = true;
    for (const auto& f : failures) same = same && f.message == failures[0].message;
    std::ostringstream msg;
    msg << "env " << failures[0].env_id << " could not be rendered: " << failures[0].message;
    if (failures.size() > 1)
      msg << " (and " << failures.size() - 1 << " more env(s) failed" << (same ? " the same way" : "") << ")";
    nb::list ids;
    for (const auto& f : failures) ids.append(f.env_id);
    const nb::object& type = error_types().render_error;
    if (!type.is_valid()) raise(nb::object(), PyExc_RuntimeError, msg.str());
    nb::object err = type(msg.str(), failures[0].env_id, ids);
    PyErr_SetObject(type.ptr(), err.ptr());
    throw nb::python_error();
  }

  // The finished batch as numpy arrays: (obs, reward, terminated, truncated, info).
  nb::tuple take_batch() {
    std::vector<EnvFailure> failures;
    std::byte* blk = pool_->finish_recv(failures);
    PyObject* owner_raw = make_owner(pool_->recycler(), blk);
    nb::object owner = nb::steal(owner_raw);
    if (!failures.empty()) raise_failures(failures);
    const BatchLayout& L = pool_->layout();
    const npy_intp rows[1] = {pool_->options().batch_size};
    nb::object obs = view(owner_raw, L.obs.in(blk), obs_type_, static_cast<int>(obs_dims_.size()), obs_dims_.data());
    nb::object reward = view(owner_raw, L.reward.in(blk), NPY_FLOAT64, 1, rows);
    nb::object terminated = view(owner_raw, L.terminated.in(blk), NPY_BOOL, 1, rows);
    nb::object truncated = view(owner_raw, L.truncated.in(blk), NPY_BOOL, 1, rows);
    nb::dict info;
    nb::object env_id = view(owner_raw, L.env_id.in(blk), NPY_INT32, 1, rows);
    info["env_id"] = env_id;
    info["elapsed_step"] = view(owner_raw, L.elapsed_step.in(blk), NPY_INT32, 1, rows);
    const auto& infos = pool_->spaces().infos;
    for (size_t f = 0; f < infos.size(); ++f)
      info[info_names_[f]] = view(owner_raw, L.infos[f].in(blk), npy_type(infos[f].dtype),
                                  static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
    if (pool_->options().autoreset_mode == AutoresetMode::kSameStep) add_final(info, owner_raw, blk, env_id);
    return nb::make_tuple(obs, reward, terminated, truncated, info);
  }

  // SAME_STEP: Gymnasium's final_obs (object array, None where no episode ended) and final_info
  // (dict of arrays), each with its boolean mask; present only when an episode ended.
  void add_final(nb::dict& info, PyObject* owner, std::byte* blk, nb::handle env_id) {
    const BatchLayout& L = pool_->layout();
    const int rows = pool_->options().batch_size;
    const bool* mask = L.final_mask.in(blk);
    bool any = false;
    for (int r = 0; r < rows; ++r) any = any || mask[r];
    if (!any) return;
    const npy_intp dims[1] = {rows};
    nb::object mask_arr = view(owner, mask, NPY_BOOL, 1, dims);
    PyObject* objs = PyArray_SimpleNew(1, const_cast<npy_intp*>(dims), NPY_OBJECT);
    if (!objs) throw nb::python_error();
    nb::object final_obs = nb::steal(objs);
    const int nd = static_cast<int>(obs_dims_.size()) - 1;
    for (int r = 0; r < rows; ++r) {
      PyObject* item;
      if (mask[r]) {
        item = view(owner, L.final_obs.row(blk, static_cast<size_t>(r)), obs_type_, nd, obs_dims_.data() + 1)
                   .release()
                   .ptr();
      } else {
        item = Py_None;
        Py_INCREF(item);
      }
      PyObject** slot = static_cast<PyObject**>(PyArray_GETPTR1(reinterpret_cast<PyArrayObject*>(objs), r));
      Py_XDECREF(*slot);
      *slot = item;
    }
    nb::dict final_info;
    final_info["env_id"] = env_id;
    final_info["_env_id"] = mask_arr;
    final_info["elapsed_step"] = view(owner, L.final_elapsed_step.in(blk), NPY_INT32, 1, dims);
    final_info["_elapsed_step"] = mask_arr;
    const auto& infos = pool_->spaces().infos;
    for (size_t f = 0; f < infos.size(); ++f) {
      final_info[info_names_[f]] = view(owner, L.final_infos[f].in(blk), npy_type(infos[f].dtype),
                                        static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
      final_info[final_info_masks_[f]] = mask_arr;
    }
    info["final_obs"] = final_obs;
    info["_final_obs"] = mask_arr;
    info["final_info"] = final_info;
    info["_final_info"] = mask_arr;
  }

  [[noreturn]] void raise_failures(const std::vector<EnvFailure>& failures) {
    std::ostringstream msg;
    msg << "env " << failures[0].env_id << " raised: " << failures[0].message;
    if (failures.size() > 1) msg << " (and " << failures.size() - 1 << " more env(s) failed in this batch)";
    msg << "; this batch is lost. The failed env(s) start a new episode on their next step"
        << (pool_->options().autoreset_mode == AutoresetMode::kDisabled
                ? " once reset with reset(options={'reset_mask': mask}) (autoreset_mode='disabled')"
                : "");
    nb::list ids;
    for (const auto& f : failures) ids.append(f.env_id);
    const nb::object& type = error_types().env_error;
    if (!type.is_valid()) raise(nb::object(), PyExc_RuntimeError, msg.str());
    nb::object err = type(msg.str(), failures[0].env_id, ids);
    PyErr_SetObject(type.ptr(), err.ptr());
    throw nb::python_error();
  }

  std::unique_ptr<Pool> pool_;
  std::string task_id_;
  std::vector<std::pair<std::string, std::string>> render_images_;  // the task's TaskMeta::render_images
  std::shared_ptr<BlockRecycler> frames_;  // render() blocks (made by the first render)
  std::atomic<bool> busy_{false};     // a call is inside (see Call)
  std::atomic<bool> closing_{false};  // close() began: calls raise PoolClosedError
  int obs_type_ = NPY_FLOAT32;
  std::vector<npy_intp> obs_dims_;
  std::vector<nb::str> info_names_, final_info_masks_;
  std::vector<std::vector<npy_intp>> info_dims_;
  std::vector<int32_t> all_ids_, ids_;
  std::vector<int32_t> held_ids_;  // a partial sync step: the stepped envs, then the held ones
  std::vector<Command> held_cmds_;
  std::vector<uint64_t> stamp_;
  uint64_t stamp_value_ = 0;
};

}  // namespace

ErrorTypes& error_types() {
  static ErrorTypes* types = new ErrorTypes();  // never destroyed: Python objects outlive static teardown
  return *types;
}

nb::object& image_reader() {
  static nb::object* reader = new nb::object();  // never destroyed, as error_types()
  return *reader;
}

void bind_native_pool(nb::module_& m) {
  nb::enum_<AutoresetMode>(m, "AutoresetMode", "Gymnasium 1.4's autoreset modes.")
      .value("next_step", AutoresetMode::kNextStep)
      .value("same_step", AutoresetMode::kSameStep)
      .value("disabled", AutoresetMode::kDisabled);

  nb::class_<PoolOptions>(m, "PoolOptions", "How a pool runs: sizes, threads, autoreset and time limit.")
      .def(
          "__init__",
          [](PoolOptions* self, int num_envs, int batch_size, int num_threads, int thread_affinity_offset,
             AutoresetMode autoreset_mode, int64_t max_episode_steps, bool render) {
            new (self) PoolOptions{num_envs, batch_size, num_threads, thread_affinity_offset, autoreset_mode,
                                   max_episode_steps, render};
          },
          nb::kw_only(), nb::arg("num_envs") = 1, nb::arg("batch_size") = 1, nb::arg("num_threads") = 1,
          nb::arg("thread_affinity_offset") = -1, nb::arg("autoreset_mode") = AutoresetMode::kNextStep,
          nb::arg("max_episode_steps") = 0, nb::arg("render") = false)
      .def_rw("num_envs", &PoolOptions::num_envs)
      .def_rw("batch_size", &PoolOptions::batch_size)
      .def_rw("num_threads", &PoolOptions::num_threads)
      .def_rw("thread_affinity_offset", &PoolOptions::thread_affinity_offset)
      .def_rw("autoreset_mode", &PoolOptions::autoreset_mode)
      .def_rw("max_episode_steps", &PoolOptions::max_episode_steps)
      .def_rw("render", &PoolOptions::render);

  m.attr("MAX_NUM_ENVS") = kMaxNumEnvs;

  nb::class_<NativePool>(m, "NativePool", "A pool of envs of one task on native threads.")
      .def(nb::init<const std::string&, nb::dict, const PoolOptions&, std::vector<uint64_t>>(), nb::arg("task_id"),
           nb::arg("config"), nb::arg("options"), nb::arg("seeds"),
           "seeds: one per env, or empty for fresh OS entropy.")
      .def_prop_ro("spaces", &NativePool::spaces, nb::rv_policy::reference_internal)
      .def_prop_ro("options", &NativePool::options, nb::rv_policy::reference_internal)
      .def("send", &NativePool::send, nb::arg("actions"), nb::arg("env_id").none() = nb::none(), nb::kw_only(),
           nb::arg("partial") = false,
           "partial: a sync pool may step only the envs in env_id; the others hold and report their current "
           "observation (reward 0, flags false).")
      .def("recv", &NativePool::recv, nb::arg("timeout").none() = nb::none())
      .def("step", &NativePool::step, nb::arg("actions"), nb::arg("env_id").none() = nb::none(), nb::kw_only(),
           nb::arg("partial") = false)
      .def("reset", &NativePool::reset, nb::kw_only(), nb::arg("mask").none() = nb::none(),
           nb::arg("seeds") = nb::dict(), nb::arg("options") = nb::dict())
      .def("async_reset", &NativePool::async_reset, nb::kw_only(), nb::arg("mask").none() = nb::none(),
           nb::arg("seeds") = nb::dict(), nb::arg("options") = nb::dict())
      .def("render", &NativePool::render, nb::arg("env_ids").none() = nb::none(),
           "Frames of env_ids (None: all) as an (n, height, width, 3) uint8 array (render_mode='rgb_array').")
      .def("close", &NativePool::close)
      .def_prop_ro("closed", &NativePool::closed)
      .def_prop_ro("outstanding", &NativePool::outstanding);
}

}  // namespace envhive::bindings
