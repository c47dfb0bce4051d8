#include "native_pool.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#include <numpy/arrayobject.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>

#if defined(__linux__)
#include <unistd.h>
#endif

#include "../core/pool.h"
#include "pool_abi.h"
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
nb::object view(PyObject* owner, const void* data, int typenum, int nd, const npy_intp* dims,
                int flags = NPY_ARRAY_CARRAY) {
  PyObject* arr = PyArray_New(&PyArray_Type, nd, const_cast<npy_intp*>(dims), typenum, nullptr,
                              const_cast<void*>(data), 0, flags, nullptr);
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

// An env stepped before its first reset (Python: envhive.ResetNeeded).
struct ResetNeededError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class NativePool;

// This module's live pools by serial number, so a pool named from outside (a handle in an XLA
// program, through the C interface in pool_abi.h) is used only while it exists. Serials are never
// reused. A pool leaves before it closes; acquire() enters a pool under the same lock, so once a
// pool has left, no new outside call can enter it.
class PoolRegistry {
 public:
  static PoolRegistry& get() {
    static PoolRegistry* registry = new PoolRegistry();  // never destroyed: pools may outlive statics
    return *registry;
  }
  uint64_t add(NativePool* pool) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t serial = next_++;
    pools_[serial] = pool;
    return serial;
  }
  void remove(uint64_t serial) {
    std::lock_guard<std::mutex> lock(mu_);
    pools_.erase(serial);
  }
  // Runs f(pool or nullptr) under the lock.
  template <class F>
  auto with(uint64_t serial, F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(serial);
    return f(it == pools_.end() ? nullptr : it->second);
  }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, NativePool*> pools_;
  uint64_t next_ = 1;
};

int32_t set_status(EnvhiveStatus* status, int32_t code, const std::string& message) {
  status->code = code;
  status->num_env_ids = 0;
  const size_t n = std::min(message.size(), sizeof(status->message) - 1);
  std::memcpy(status->message, message.data(), n);
  status->message[n] = '\0';
  return code;
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
      if (info.name == "discount" && info.shape.empty()) discount_info_ = static_cast<int>(info_names_.size());
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
    serial_ = PoolRegistry::get().add(this);
  }

  // An XLA call may still be inside (the jitted program outlived the Python object): it returns
  // PoolClosedError within one chunk of envs (or, when its envs write into the call's obs buffer,
  // once the batch's envs have run: abi_release settles), and the pool is freed once it has left.
  ~NativePool() {
    PoolRegistry::get().remove(serial_);
    if (pool_) {
      closing_.store(true, std::memory_order_seq_cst);
      pool_->request_close();
      nb::gil_scoped_release release;
      while (!try_enter()) std::this_thread::sleep_for(std::chrono::microseconds(200));
      pool_->close();
      leave();
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
    PoolRegistry::get().remove(serial_);              // handles in XLA programs: "closed" from now
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

  // dm_env's view of a step / recv: (timestep, (info, terminated, truncated)), the timestep a
  // `timestep_type` (a 4-field tuple subclass: dm_env.TimeStep) of (step_type, reward, discount,
  // obs). step_type and discount are read-only int8 / float32 arrays computed here from the flags,
  // elapsed_step and the task's own scalar `discount` info, if it has one.
  nb::tuple step_dm(nb::handle actions, nb::handle env_id) {
    Call call(*this);
    check_timestep_type();
    send_unguarded(actions, env_id, false);
    check_can_receive();
    wait_batch(std::nullopt, "step()");
    return take_batch(true);
  }

  nb::tuple recv_dm(nb::handle timeout) {
    Call call(*this);
    check_timestep_type();
    const std::optional<double> seconds = parse_timeout(timeout);
    check_can_receive();
    wait_batch(seconds, "recv()");
    return take_batch(true);
  }

  nb::object timestep_type() const { return timestep_type_.is_valid() ? timestep_type_ : nb::none(); }
  void set_timestep_type(nb::handle type) {
    if (!PyType_Check(type.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type) ||
        reinterpret_cast<PyTypeObject*>(type.ptr())->tp_basicsize != PyTuple_Type.tp_basicsize)
      throw nb::type_error("timestep_type must be a tuple subclass without instance attributes (dm_env.TimeStep)");
    timestep_type_ = nb::borrow(type);
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

  // ---- the C interface (pool_abi.h): no Python, no GIL; one call between acquire and release ----
  uint64_t serial() const { return serial_; }
  uint64_t next_xla_call() const { return xla_next_call_.load(std::memory_order_relaxed); }

  // Called with the registry locked (PoolRegistry::with), so the pool cannot leave meanwhile.
  int32_t abi_acquire(uint64_t call, EnvhiveStatus* st) {
    if (closed()) return set_status(st, ENVHIVE_CLOSED, "the pool is closed");
    if (!try_enter())
      return set_status(st, ENVHIVE_BUSY,
                        "the pool is in use by another call (a Python call on another thread, or another XLA call "
                        "given the same handle); a pool serves one call at a time");
    if (closed()) {
      leave();
      return set_status(st, ENVHIVE_CLOSED, "the pool is closed");
    }
    const uint64_t expected = xla_next_call_.load(std::memory_order_relaxed);
    if (!xla_resync_ && call != expected) {
      leave();
      return set_status(st, ENVHIVE_STALE,
                        "stale handle: this is call #" + std::to_string(expected) +
                            " on the pool but the handle is for call #" + std::to_string(call) +
                            "; pass the handle returned by the previous call (a reused handle, or a result "
                            "discarded by jax.vmap of lax.cond / lax.while_loop with a per-lane predicate, which "
                            "still ran the call)");
    }
    xla_checked_ = false;
    return ENVHIVE_OK;
  }

  void abi_release(uint64_t call, bool reached_pool, bool ok) {
    // A call that set an obs target and did not receive its batch (a wait a close ended, a failed
    // send in another lane): no pool thread may write into the caller's buffer once it returns.
    if (pool_->obs_target() != nullptr) pool_->settle();
    if (reached_pool) {
      if (ok) xla_next_call_.store(call + 1, std::memory_order_relaxed);
      xla_resync_ = !ok;  // the caller still holds the handle from before the failed program
    }
    leave();
  }

  void abi_describe(EnvhivePoolShape* shape) const {
    const auto& o = pool_->options();
    const SpaceSpec& act = pool_->spaces().action;
    shape->num_envs = o.num_envs;
    shape->batch_size = o.batch_size;
    shape->sync = pool_->sync();
    shape->num_outputs = static_cast<int32_t>(num_outputs());
    shape->action_elements = static_cast<int64_t>(act.kind == SpaceSpec::Kind::kDiscrete ? 1 : act.count());
    shape->action_dtype = static_cast<int32_t>(act.dtype);
  }

  int32_t abi_check_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* st) {
    return guarded(st, [&] {
      xla_checked_ = false;
      if (n < 0) throw std::invalid_argument("a negative number of rows");
      const auto& ids = check_ids(env_ids, static_cast<size_t>(n));
      const int num_envs = pool_->options().num_envs;
      if (pool_->sync() && ids.size() != static_cast<size_t>(num_envs))  // no partial steps here
        throw std::invalid_argument("sync mode (batch_size == num_envs) steps all " + std::to_string(num_envs) +
                                    " envs together; got env_id for " + std::to_string(ids.size()) +
                                    ". Use batch_size < num_envs for async stepping");
      convert_raw_actions(actions, ids.size());
      check_action_values(xla_rows_.data(), ids);
      check_steppable(ids);
      xla_checked_ = true;
    });
  }

  int32_t abi_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* st) {
    if (!xla_checked_)
      if (const int32_t code = abi_check_send(actions, env_ids, n, st); code != ENVHIVE_OK) return code;
    xla_checked_ = false;
    return guarded(st, [&] {
      const Command step = Command::kStep;
      pool_->dispatch(ids_.data(), ids_.size(), &step, 1, xla_rows_.data());
    });
  }

  int32_t abi_wait(EnvhiveStatus* st) {
    return guarded(st, [&] {
      check_can_receive();
      const WaitResult r = pool_->wait_batch(std::nullopt, [] { return false; });  // no Ctrl-C without the GIL
      if (r == WaitResult::kClosed)
        throw PoolClosedDuringCall("the pool was closed by another thread while an XLA call waited in it");
    });
  }

  // pool_abi.h's write_obs_into: the next batch's obs rows go into the caller's buffer.
  int32_t abi_write_obs_into(const EnvhiveBuffer& obs) {
    const SpaceSpec& o = pool_->spaces().observation;
    const bool fits = pool_->sync() && obs.data != nullptr && obs.dtype == static_cast<int32_t>(o.dtype) &&
                      obs.elements == static_cast<int64_t>(pool_->options().batch_size) *
                                          static_cast<int64_t>(o.count()) &&
                      reinterpret_cast<uintptr_t>(obs.data) % 16 == 0;
    pool_->set_obs_target(fits ? static_cast<std::byte*>(obs.data) : nullptr);
    return fits ? 1 : 0;
  }

  // Guests of a batched call (pool_abi.h): the caller's call is in flight, so pool_ is live.
  void abi_set_assisted(bool on) { pool_->set_assisted(on); }
  bool abi_assist() { return pool_->assist(); }

  int32_t abi_recv(const EnvhiveBuffer* outputs, int64_t count, EnvhiveStatus* st) {
    std::string layout_error;
    if (count != static_cast<int64_t>(num_outputs()))
      layout_error = "recv got " + std::to_string(count) + " output buffers; the pool writes " +
                     std::to_string(num_outputs());
    std::vector<EnvFailure> failures;
    std::byte* blk = nullptr;
    // The obs rows are in place when write_obs_into took this very buffer (finish_recv forgets it).
    const std::byte* target = pool_->obs_target();
    const bool obs_in_place = target != nullptr && count > 0 && outputs[0].data == target;
    const int32_t code = guarded(st, [&] { blk = pool_->finish_recv(failures); });
    if (code != ENVHIVE_OK) return code;
    const int32_t result = guarded(st, [&] {
      if (!layout_error.empty()) throw std::invalid_argument(layout_error);
      if (!failures.empty()) return;
      copy_batch(blk, outputs, obs_in_place);
    });
    pool_->recycler()->release(blk);
    if (result != ENVHIVE_OK || failures.empty()) return result;
    set_status(st, ENVHIVE_ENV_ERROR, failure_message(failures));
    for (const auto& f : failures) {
      if (st->num_env_ids == ENVHIVE_STATUS_MAX_ENV_IDS) break;
      st->env_ids[st->num_env_ids++] = f.env_id;
    }
    return ENVHIVE_ENV_ERROR;
  }

 private:
  struct PoolClosedDuringCall : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  // Runs f, turning any exception into a status (nothing may unwind through the C interface).
  template <class F>
  static int32_t guarded(EnvhiveStatus* st, F&& f) noexcept {
    try {
      f();
      return ENVHIVE_OK;
    } catch (const ResetNeededError& e) {
      return set_status(st, ENVHIVE_RESET_NEEDED, e.what());
    } catch (const PoolClosedDuringCall& e) {
      return set_status(st, ENVHIVE_CLOSED, e.what());
    } catch (const std::invalid_argument& e) {
      return set_status(st, ENVHIVE_INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
      return set_status(st, ENVHIVE_INTERNAL, e.what());
    } catch (...) {
      return set_status(st, ENVHIVE_INTERNAL, "unknown C++ exception");
    }
  }

  size_t num_outputs() const {
    const size_t infos = pool_->spaces().infos.size();
    return 6 + infos + (pool_->options().autoreset_mode == AutoresetMode::kSameStep ? 3 + infos : 0);
  }

  // `actions` (n rows, any integer dtype for Discrete, float32/float64 for Box) into xla_rows_ of
  // the pool's action dtype.
  void convert_raw_actions(const EnvhiveBuffer& a, size_t n) {
    const SpaceSpec& act = pool_->spaces().action;
    const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
    const size_t per = discrete ? 1 : act.count();
    if (a.elements != static_cast<int64_t>(n * per))
      throw std::invalid_argument("actions hold " + std::to_string(a.elements) + " values; expected " +
                                  std::to_string(n) + " rows x " + std::to_string(per));
    const bool integer = a.dtype == ENVHIVE_INT32 || a.dtype == ENVHIVE_INT64 || a.dtype == ENVHIVE_UINT8;
    const bool real = a.dtype == ENVHIVE_FLOAT32 || a.dtype == ENVHIVE_FLOAT64;
    if (discrete ? !integer : !(real || integer))
      throw std::invalid_argument(std::string("actions for a ") + (discrete ? "Discrete" : "Box") +
                                  " action space must be " + (discrete ? "integers" : "real numbers") + ", got " +
                                  dtype_name(static_cast<DType>(a.dtype)));
    xla_rows_.resize(n * per * dtype_size(act.dtype));
    const size_t count = n * per;
    auto convert = [&]<class Out>(Out* out) {
      auto from = [&]<class In>(const In* in) {
        for (size_t i = 0; i < count; ++i) out[i] = static_cast<Out>(in[i]);
      };
      switch (a.dtype) {
        case ENVHIVE_UINT8: from(static_cast<const uint8_t*>(a.data)); break;
        case ENVHIVE_INT32: from(static_cast<const int32_t*>(a.data)); break;
        case ENVHIVE_INT64: from(static_cast<const int64_t*>(a.data)); break;
        case ENVHIVE_FLOAT32: from(static_cast<const float*>(a.data)); break;
        case ENVHIVE_FLOAT64: from(static_cast<const double*>(a.data)); break;
        default: break;
      }
    };
    switch (act.dtype) {
      case DType::kInt64: convert(reinterpret_cast<int64_t*>(xla_rows_.data())); break;
      case DType::kInt32: convert(reinterpret_cast<int32_t*>(xla_rows_.data())); break;
      case DType::kFloat32: convert(reinterpret_cast<float*>(xla_rows_.data())); break;
      case DType::kFloat64: convert(reinterpret_cast<double*>(xla_rows_.data())); break;
      default: throw std::invalid_argument(std::string("action dtype ") + dtype_name(act.dtype) + " is not supported");
    }
  }

  // One column of the batch (rows x `per_row` values of `type`) into a caller's buffer of the
  // same dtype or its 32-bit form.
  static void copy_column(const std::byte* src, DType type, size_t values, const EnvhiveBuffer& out,
                          const char* what) {
    if (out.elements != static_cast<int64_t>(values))
      throw std::invalid_argument(std::string(what) + " buffer holds " + std::to_string(out.elements) +
                                  " values; the batch has " + std::to_string(values));
    if (out.dtype == static_cast<int32_t>(type)) {
      std::memcpy(out.data, src, values * dtype_size(type));
    } else if (type == DType::kFloat64 && out.dtype == ENVHIVE_FLOAT32) {
      const double* in = reinterpret_cast<const double*>(src);
      float* o = static_cast<float*>(out.data);
      for (size_t i = 0; i < values; ++i) o[i] = static_cast<float>(in[i]);
    } else if (type == DType::kInt64 && out.dtype == ENVHIVE_INT32) {
      const int64_t* in = reinterpret_cast<const int64_t*>(src);
      int32_t* o = static_cast<int32_t*>(out.data);
      for (size_t i = 0; i < values; ++i) o[i] = static_cast<int32_t>(in[i]);
    } else {
      throw std::invalid_argument(std::string(what) + " buffer is " + dtype_name(static_cast<DType>(out.dtype)) +
                                  "; the batch's is " + dtype_name(type));
    }
  }

  void copy_batch(const std::byte* blk, const EnvhiveBuffer* out, bool obs_in_place) const {
    const BatchLayout& L = pool_->layout();
    const auto& sp = pool_->spaces();
    const size_t rows = static_cast<size_t>(pool_->options().batch_size);
    const size_t obs_values = rows * sp.observation.count();
    size_t k = 0;
    if (obs_in_place)
      ++k;
    else
      copy_column(L.obs.in(blk), sp.observation.dtype, obs_values, out[k++], "obs");
    copy_column(reinterpret_cast<const std::byte*>(L.reward.in(blk)), DType::kFloat64, rows, out[k++], "reward");
    copy_column(reinterpret_cast<const std::byte*>(L.terminated.in(blk)), DType::kBool, rows, out[k++], "terminated");
    copy_column(reinterpret_cast<const std::byte*>(L.truncated.in(blk)), DType::kBool, rows, out[k++], "truncated");
    copy_column(reinterpret_cast<const std::byte*>(L.env_id.in(blk)), DType::kInt32, rows, out[k++], "env_id");
    copy_column(reinterpret_cast<const std::byte*>(L.elapsed_step.in(blk)), DType::kInt32, rows, out[k++],
                "elapsed_step");
    auto info_values = [&](size_t f) { return rows * sp.infos[f].bytes() / dtype_size(sp.infos[f].dtype); };
    for (size_t f = 0; f < sp.infos.size(); ++f)
      copy_column(L.infos[f].in(blk), sp.infos[f].dtype, info_values(f), out[k++], sp.infos[f].name.c_str());
    if (pool_->options().autoreset_mode != AutoresetMode::kSameStep) return;
    copy_column(reinterpret_cast<const std::byte*>(L.final_mask.in(blk)), DType::kBool, rows, out[k++], "final_mask");
    copy_column(L.final_obs.in(blk), sp.observation.dtype, obs_values, out[k], "final_obs");
    {  // dense: zeros where no episode ended (the block holds whatever was there; numpy shows None)
      const bool* mask = L.final_mask.in(blk);
      const size_t row_bytes = sp.observation.count() * dtype_size(static_cast<DType>(out[k].dtype));
      for (size_t r = 0; r < rows; ++r)
        if (!mask[r]) std::memset(static_cast<std::byte*>(out[k].data) + r * row_bytes, 0, row_bytes);
      ++k;
    }
    copy_column(reinterpret_cast<const std::byte*>(L.final_elapsed_step.in(blk)), DType::kInt32, rows, out[k++],
                "final elapsed_step");
    for (size_t f = 0; f < sp.infos.size(); ++f)
      copy_column(L.final_infos[f].in(blk), sp.infos[f].dtype, info_values(f), out[k++], sp.infos[f].name.c_str());
  }

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
      throw std::invalid_argument(msg.str());
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

  // Every env in `ids` may be stepped: reset at least once, and (DISABLED) not at an episode's end.
  void check_steppable(const std::vector<int32_t>& ids) const {
    if (pool_->never_reset() > 0)
      for (int32_t id : ids)
        if (!pool_->was_reset(id))
          throw ResetNeededError("env " + std::to_string(id) +
                                 " has not been reset: call reset() (or async_reset() and recv()) before stepping it");
    if (pool_->options().autoreset_mode == AutoresetMode::kDisabled)
      for (int32_t id : ids)
        if (pool_->episode_over(id))
          throw std::invalid_argument("env " + std::to_string(id) +
                                      " has ended its episode and autoreset_mode is 'disabled': reset it first with "
                                      "reset(options={'reset_mask': mask})");
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
    return check_ids(static_cast<const int64_t*>(PyArray_DATA(c)), static_cast<size_t>(PyArray_SIZE(c)));
  }

  // The ids of one send: in range, each once, none in flight, all of them in sync mode. Into ids_.
  template <class T>
  const std::vector<int32_t>& check_ids(const T* v, size_t m) {
    const int n = pool_->options().num_envs;
    ids_.resize(m);
    ++stamp_value_;
    for (size_t i = 0; i < m; ++i) {
      if (v[i] < 0 || v[i] >= n)
        throw std::invalid_argument("env_id " + std::to_string(v[i]) + " is out of range [0, " + std::to_string(n) +
                                    ")");
      const auto id = static_cast<int32_t>(v[i]);
      if (stamp_[static_cast<size_t>(id)] == stamp_value_)
        throw std::invalid_argument("env_id " + std::to_string(id) + " appears twice in one send()");
      stamp_[static_cast<size_t>(id)] = stamp_value_;
      if (pool_->in_flight(id))
        throw std::invalid_argument("env " + std::to_string(id) +
                                    " is not awaiting an action: it was sent and not yet returned by recv()");
      ids_[i] = id;
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
    check_action_values(static_cast<const std::byte*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(conv))), ids);
    return rows;
  }

  // Action rows of the pool's action dtype (int64 for Discrete), one per id: Discrete values in
  // range, Box values finite.
  void check_action_values(const std::byte* rows, const std::vector<int32_t>& ids) const {
    const SpaceSpec& act = pool_->spaces().action;
    const size_t n = ids.size();
    if (act.kind == SpaceSpec::Kind::kDiscrete) {
      const int64_t* v = reinterpret_cast<const int64_t*>(rows);
      for (size_t i = 0; i < n; ++i)
        if (v[i] < act.start || v[i] >= act.start + act.n) {
          std::ostringstream msg;
          msg << "action " << v[i] << " for env " << ids[i] << " is outside Discrete(" << act.n
              << (act.start ? ", start=" + std::to_string(act.start) : std::string()) << "): valid actions are "
              << act.start << ".." << act.start + act.n - 1;
          throw std::invalid_argument(msg.str());
        }
      return;
    }
    const size_t per = act.count();
    auto check = [&](auto* v) {
      for (size_t i = 0; i < n * per; ++i)
        if (!std::isfinite(v[i])) {
          std::ostringstream msg;
          msg << "action for env " << ids[i / per] << " is not finite (" << v[i]
              << "); envhive rejects NaN and infinite actions";
          throw std::invalid_argument(msg.str());
        }
    };
    if (act.dtype == DType::kFloat32)
      check(reinterpret_cast<const float*>(rows));
    else if (act.dtype == DType::kFloat64)
      check(reinterpret_cast<const double*>(rows));
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

  // The finished batch as numpy arrays: (obs, reward, terminated, truncated, info), or with `dm`
  // (timestep, (info, terminated, truncated)) as step_dm returns it.
  nb::tuple take_batch(bool dm = false) {
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
    if (!dm) return nb::make_tuple(obs, reward, terminated, truncated, info);
    write_dm_columns(blk);
    constexpr int kReadOnly = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    nb::object step_type = view(owner_raw, L.step_type.in(blk), NPY_INT8, 1, rows, kReadOnly);
    nb::object discount = view(owner_raw, L.discount.in(blk), NPY_FLOAT32, 1, rows, kReadOnly);
    // tuple.__new__(timestep_type, ...) without its argument parsing: the type has no fields
    // beyond the tuple's (set_timestep_type checks), so it is a tuple of the four, typed.
    auto* type = reinterpret_cast<PyTypeObject*>(timestep_type_.ptr());
    PyObject* ts = type->tp_alloc(type, 4);
    if (!ts) throw nb::python_error();
    PyTuple_SET_ITEM(ts, 0, step_type.release().ptr());
    PyTuple_SET_ITEM(ts, 1, reward.release().ptr());
    PyTuple_SET_ITEM(ts, 2, discount.release().ptr());
    PyTuple_SET_ITEM(ts, 3, obs.release().ptr());
    return nb::make_tuple(nb::steal(ts), nb::make_tuple(info, terminated, truncated));
  }

  void check_timestep_type() const {
    if (!timestep_type_.is_valid()) throw nb::value_error("set timestep_type (dm_env.TimeStep) before step_dm / recv_dm");
  }

  // dm_env's step types and discounts of a finished batch. A row is LAST when its episode ended,
  // FIRST when it (re)started an episode (elapsed_step 0: a reset, or the NEXT_STEP reset step
  // after a LAST), MID otherwise; its discount is 0 on termination, 1 otherwise (a truncation
  // bootstraps), lowered by the task's own `discount` info (Atari's zero_discount_on_life_loss).
  void write_dm_columns(std::byte* blk) {
    const BatchLayout& L = pool_->layout();
    const size_t rows = L.rows;
    const bool* terminated = L.terminated.in(blk);
    const bool* truncated = L.truncated.in(blk);
    const int32_t* elapsed = L.elapsed_step.in(blk);
    int8_t* step_type = L.step_type.in(blk);
    float* discount = L.discount.in(blk);
    for (size_t r = 0; r < rows; ++r) {
      step_type[r] = terminated[r] || truncated[r] ? int8_t{2} : elapsed[r] == 0 ? int8_t{0} : int8_t{1};
      discount[r] = terminated[r] ? 0.0f : 1.0f;
    }
    if (discount_info_ < 0) return;
    const std::byte* task = L.infos[discount_info_].in(blk);
    auto lower = [&]<class T>(const T* values) {
      for (size_t r = 0; r < rows; ++r) discount[r] = std::min(discount[r], static_cast<float>(values[r]));
    };
    switch (pool_->spaces().infos[discount_info_].dtype) {
      case DType::kBool: lower(reinterpret_cast<const bool*>(task)); break;
      case DType::kUInt8: lower(reinterpret_cast<const uint8_t*>(task)); break;
      case DType::kInt32: lower(reinterpret_cast<const int32_t*>(task)); break;
      case DType::kInt64: lower(reinterpret_cast<const int64_t*>(task)); break;
      case DType::kFloat32: lower(reinterpret_cast<const float*>(task)); break;
      case DType::kFloat64: lower(reinterpret_cast<const double*>(task)); break;
    }
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

  std::string failure_message(const std::vector<EnvFailure>& failures) const {
    std::ostringstream msg;
    msg << "env " << failures[0].env_id << " raised: " << failures[0].message;
    if (failures.size() > 1) msg << " (and " << failures.size() - 1 << " more env(s) failed in this batch)";
    msg << "; this batch is lost. The failed env(s) start a new episode on their next step"
        << (pool_->options().autoreset_mode == AutoresetMode::kDisabled
                ? " once reset with reset(options={'reset_mask': mask}) (autoreset_mode='disabled')"
                : "");
    return msg.str();
  }

  [[noreturn]] void raise_failures(const std::vector<EnvFailure>& failures) {
    const std::string msg = failure_message(failures);
    nb::list ids;
    for (const auto& f : failures) ids.append(f.env_id);
    const nb::object& type = error_types().env_error;
    if (!type.is_valid()) raise(nb::object(), PyExc_RuntimeError, msg);
    nb::object err = type(msg, failures[0].env_id, ids);
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
  // The index of the task's scalar `discount` info field; -1 without one (the dm facade refuses a
  // task whose `discount` info is not a scalar).
  int discount_info_ = -1;
  nb::object timestep_type_;  // what step_dm / recv_dm return their timestep as
  std::vector<std::vector<npy_intp>> info_dims_;
  std::vector<int32_t> all_ids_, ids_;
  std::vector<int32_t> held_ids_;  // a partial sync step: the stepped envs, then the held ones
  std::vector<Command> held_cmds_;
  std::vector<uint64_t> stamp_;
  uint64_t stamp_value_ = 0;
  // The C interface's state (pool_abi.h), touched only by the call inside (busy_ orders them).
  uint64_t serial_ = 0;                       // this module's number for the pool (PoolRegistry)
  std::atomic<uint64_t> xla_next_call_{0};    // the call number the next handle must carry
  bool xla_resync_ = false;                   // the last call failed: accept any number once
  bool xla_checked_ = false;                  // check_send accepted the rows in xla_rows_ / ids_
  std::vector<std::byte> xla_rows_;           // actions converted to the pool's action dtype
};

// The C interface's functions: the pool argument is used only after acquire found it live.
NativePool* as_pool(void* p) { return static_cast<NativePool*>(p); }

const EnvhivePoolAbi kPoolAbi = {
    ENVHIVE_POOL_ABI_VERSION,
    sizeof(EnvhivePoolAbi),
#define ENVHIVE_STR2(x) #x
#define ENVHIVE_STR(x) ENVHIVE_STR2(x)
    ENVHIVE_STR(ENVHIVE_MODULE_NAME),
#undef ENVHIVE_STR
#undef ENVHIVE_STR2
    [](uint64_t serial, void* pool, uint64_t call, EnvhiveStatus* st) -> int32_t {
      return PoolRegistry::get().with(serial, [&](NativePool* live) {
        if (live == nullptr || live != pool)
          return set_status(st, ENVHIVE_CLOSED, "pool #" + std::to_string(serial) + " is closed or deleted");
        return live->abi_acquire(call, st);
      });
    },
    [](void* pool, uint64_t call, int32_t reached, int32_t ok) { as_pool(pool)->abi_release(call, reached, ok); },
    [](void* pool, EnvhivePoolShape* shape) { as_pool(pool)->abi_describe(shape); },
    [](void* pool) { return as_pool(pool)->next_xla_call(); },
    [](void* pool, const EnvhiveBuffer* actions, const int32_t* ids, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_check_send(*actions, ids, n, st);
    },
    [](void* pool, const EnvhiveBuffer* actions, const int32_t* ids, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_send(*actions, ids, n, st);
    },
    [](void* pool, EnvhiveStatus* st) { return as_pool(pool)->abi_wait(st); },
    [](void* pool, const EnvhiveBuffer* outputs, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_recv(outputs, n, st);
    },
    [](void* pool, int32_t on) { as_pool(pool)->abi_set_assisted(on != 0); },
    [](void* pool) -> int32_t { return as_pool(pool)->abi_assist() ? 1 : 0; },
    [](void* pool, const EnvhiveBuffer* obs) -> int32_t { return as_pool(pool)->abi_write_obs_into(*obs); },
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
      .def("step_dm", &NativePool::step_dm, nb::arg("actions"), nb::arg("env_id").none() = nb::none(),
           "step() as dm_env sees it: (timestep, (info, terminated, truncated)), timestep a timestep_type of "
           "(step_type, reward, discount, obs), step_type int8 (FIRST 0, MID 1, LAST 2) and discount float32, "
           "both read-only.")
      .def("recv_dm", &NativePool::recv_dm, nb::arg("timeout").none() = nb::none(),
           "recv() as dm_env sees it (see step_dm).")
      .def_prop_rw("timestep_type", &NativePool::timestep_type, &NativePool::set_timestep_type,
                   "The tuple subclass step_dm / recv_dm build their timestep as (dm_env.TimeStep); None until set.")
      .def("reset", &NativePool::reset, nb::kw_only(), nb::arg("mask").none() = nb::none(),
           nb::arg("seeds") = nb::dict(), nb::arg("options") = nb::dict())
      .def("async_reset", &NativePool::async_reset, nb::kw_only(), nb::arg("mask").none() = nb::none(),
           nb::arg("seeds") = nb::dict(), nb::arg("options") = nb::dict())
      .def("render", &NativePool::render, nb::arg("env_ids").none() = nb::none(),
           "Frames of env_ids (None: all) as an (n, height, width, 3) uint8 array (render_mode='rgb_array').")
      .def("close", &NativePool::close)
      .def_prop_ro("closed", &NativePool::closed)
      .def_prop_ro("outstanding", &NativePool::outstanding)
      .def(
          "abi_ref",
          [](const NativePool& p) {
            return nb::make_tuple(p.serial(), reinterpret_cast<uintptr_t>(&p), p.next_xla_call());
          },
          "(serial, address, next call number): how code outside this module names the pool through "
          "POOL_ABI (pool_abi.h), e.g. in an XLA handle.");

  // The C interface of this module's pools (pool_abi.h), for envhive._xla.
  m.attr("POOL_ABI") = nb::capsule(static_cast<const void*>(&kPoolAbi), ENVHIVE_POOL_ABI_CAPSULE);
}

}  // namespace envhive::bindings
