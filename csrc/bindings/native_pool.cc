#include "native_pool.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "pool_object.h"
#include "spec_types.h"

namespace envhive::bindings {

namespace {

// A timeout this long (about 31 years) or longer is no deadline.
constexpr double kNoDeadlineSeconds = 1e9;

bool check_signals(bool& interrupted) {
  nb::gil_scoped_acquire acquire;
  if (PyErr_CheckSignals() != 0) {
    interrupted = true;
    return true;
  }
  return false;
}

// A C-contiguous int64 array of the ids in `env_id` (an int or a 1-D array of ints), `what` naming
// the argument in errors.
nb::object id_array(nb::handle env_id, const char* what) {
  PyObject* arr = PyArray_FromAny(env_id.ptr(), nullptr, 0, 0, 0, nullptr);
  if (!arr) throw nb::python_error();
  nb::object holder = nb::steal(arr);
  auto* a = reinterpret_cast<PyArrayObject*>(arr);
  if (PyArray_NDIM(a) > 1) throw nb::value_error(call_message(Msg::kEnvIdForm, {{"what", what}}).c_str());
  if (PyArray_SIZE(a) > 0 && (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a)))
    throw nb::type_error(
        call_message(Msg::kEnvIdIntegers, {{"what", what}, {"got", ", got dtype " + dtype_text(a)}}).c_str());
  PyObject* conv = PyArray_FromAny(arr, PyArray_DescrFromType(NPY_INT64), 0, 1,
                                   NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr);
  if (!conv) throw nb::python_error();
  return nb::steal(conv);
}

}  // namespace

PoolRegistry& PoolRegistry::get() {
  static PoolRegistry* registry = new PoolRegistry();  // never destroyed: pools may outlive statics
  return *registry;
}

uint64_t PoolRegistry::add(NativePool* pool) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t serial = next_++;
  pools_[serial] = pool;
  return serial;
}

void PoolRegistry::remove(uint64_t serial) {
  std::lock_guard<std::mutex> lock(mu_);
  pools_.erase(serial);
}

namespace {
// {env id: seed} (checked by envhive.checks.env_seeds) as (id, seed) pairs, each within what the
// task's envs take (TaskMeta::max_seed), before any env sees one.
std::vector<std::pair<int32_t, uint64_t>> seed_pairs(const std::string& task_id, uint64_t max_seed, nb::dict seeds) {
  std::vector<std::pair<int32_t, uint64_t>> out;
  for (auto [k, v] : seeds) {
    const auto env = nb::cast<int32_t>(k);
    const auto seed = nb::cast<uint64_t>(v);
    if (seed > max_seed)
      throw nb::value_error((task_id + " seeds must be in [0, " + std::to_string(max_seed) + "], got " +
                             std::to_string(seed) + " for env " + std::to_string(env) +
                             " (an int seed s seeds env i with s + i)")
                                .c_str());
    out.emplace_back(env, seed);
  }
  return out;
}
}  // namespace

NativePool::NativePool(const std::string& task_id, nb::dict config, const PoolOptions& options, nb::dict seeds) {
  const TaskDef* task = task_registry().find(task_id);
  if (!task) throw nb::key_error(("unknown task id '" + task_id + "'").c_str());
  const Config cfg = config_from_py(*task, config);
  task_id_ = task_id;
  max_seed_ = task->meta.max_seed;
  const auto pairs = seed_pairs(task_id_, max_seed_, seeds);
  // Every env seeded: the envs are built with their seeds; some: built from entropy, those reseeded
  // at their first reset.
  std::vector<uint64_t> all;
  if (pairs.size() == static_cast<size_t>(options.num_envs) && options.num_envs > 0) {
    all.resize(pairs.size());
    for (const auto& [env, seed] : pairs) all.at(static_cast<size_t>(env)) = seed;
  }
  if (task->meta.images_at_start) load_render_images(task_id, task->meta.render_images);
  {
    nb::gil_scoped_release release;  // building envs can take long (Atari: ~85 ms each)
    pool_ = std::make_unique<Pool>(*task, cfg, options, all);
  }
  if (all.empty())
    for (const auto& [env, seed] : pairs) pool_->set_seed(env, seed);
  front_ = std::make_unique<CallFront>(*pool_);
  views_ = std::make_unique<BatchViews>(pool_->spaces(), pool_->options());
  frames_ = std::make_unique<Frames>(*pool_, task_id, task->meta.render_images);
  dm_ = std::make_unique<DmColumns>(pool_->spaces());
  serial_ = PoolRegistry::get().add(this);
}

// An XLA call may still be inside (the jitted program outlived the Python object): it returns
// PoolClosedError within one chunk of envs (or, when its envs write into the call's obs buffer,
// once the batch's envs have run: abi_release settles), and the pool is freed once it has left.
NativePool::~NativePool() {
  if (forked_copy()) {
    // The parent owns the pool (and the registry's lock may have been held at the fork): leaked.
    static_cast<void>(pool_.release());
    return;
  }
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

// Any thread. Waits for a call in flight in another thread to return (it raises PoolClosedError),
// then stops the threads. Idempotent.
void NativePool::close() {
  if (pool_->closed()) return;
  if (forked_copy()) {  // a forked child's copy: calls on it raise "closed", the parent's threads run on
    closing_.store(true, std::memory_order_seq_cst);
    return;
  }
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

NativePool::Call::Call(NativePool& p) : p_(p) {
  if (!p_.try_enter()) {
    if (p_.closing_.load(std::memory_order_acquire)) p_.raise_closed("");
    raise(error_types().pool_busy, PyExc_RuntimeError,
          "this envhive pool is in use by another thread (a call is waiting in it); a pool serves one thread at a "
          "time: give each thread its own pool, or serialise the calls");
  }
  if (p_.closed()) {
    p_.leave();
    p_.raise_closed("");
  }
}

void NativePool::raise_closed(const char* during) const {
  std::string msg = "this envhive pool is closed";
  if (*during) msg += std::string(" (closed by another thread while ") + during + " waited)";
  raise(error_types().pool_closed, PyExc_ValueError, msg);
}

void NativePool::send(nb::handle actions, nb::handle env_id, bool partial) {
  Call call(*this);
  send_unguarded(actions, env_id, partial);
}

nb::tuple NativePool::recv(std::optional<double> timeout) {
  Call call(*this);
  front_->check_can_receive();
  wait_batch(timeout, "recv()");
  return take_batch();
}

nb::tuple NativePool::step(nb::handle actions, nb::handle env_id, bool partial) {
  Call call(*this);
  send_unguarded(actions, env_id, partial);
  front_->check_can_receive();
  wait_batch(std::nullopt, "step()");
  return take_batch();
}

// dm_env's view of a step / recv: (timestep, (info, terminated, truncated)) (dm_columns.h).
nb::tuple NativePool::step_dm(nb::handle actions, nb::handle env_id) {
  Call call(*this);
  dm_->check_timestep_type();
  send_unguarded(actions, env_id, false);
  front_->check_can_receive();
  wait_batch(std::nullopt, "step()");
  return take_batch(true);
}

nb::tuple NativePool::recv_dm(std::optional<double> timeout) {
  Call call(*this);
  dm_->check_timestep_type();
  front_->check_can_receive();
  wait_batch(timeout, "recv()");
  return take_batch(true);
}

// Drains anything in flight, resets the envs in `mask` (all when None), seeding those in `seeds`
// (env id -> seed) and applying `options` (name -> {env id: values}). Sync mode returns every env's
// observation (those not reset report their current one); async mode the next batch.
nb::tuple NativePool::reset(nb::handle mask, nb::dict seeds, nb::dict options) {
  Call call(*this);
  queue_reset(mask, seeds, options, true);
  wait_batch(std::nullopt, "reset()");
  nb::tuple full = take_batch();
  return nb::make_tuple(full[0], full[4]);
}

// Queues the reset without waiting; recv() collects the results.
void NativePool::async_reset(nb::handle mask, nb::dict seeds, nb::dict options) {
  Call call(*this);
  queue_reset(mask, seeds, options, false);
}

// The frames of the envs in `env_ids` (None: every env), drawn on the pool's threads without the
// GIL, as one (n, height, width, 3) uint8 array viewing a block that Python owns from now on.
nb::object NativePool::render(nb::handle env_ids) {
  Call call(*this);
  frames_->check_renders();
  const std::vector<int32_t> ids = render_ids(env_ids);
  frames_->load_images();
  nb::object owner;
  std::byte* blk = frames_->acquire(ids.size(), owner);
  std::vector<RenderFailure> failures;
  bool interrupted = false;
  WaitResult r;
  {
    nb::gil_scoped_release release;
    r = pool_->render(ids.data(), ids.size(), reinterpret_cast<uint8_t*>(blk), failures,
                      [&] { return check_signals(interrupted); });
  }
  finish_wait(r, "render()");
  if (!failures.empty()) Frames::raise_failures(failures);
  return frames_->frames(owner.ptr(), blk, ids.size());
}

// `partial` (sync pools): env_id may name some envs only; the others hold (kEmit: their rows
// report the current observation, reward 0, both flags false), as a partial reset reports them.
void NativePool::send_unguarded(nb::handle actions, nb::handle env_id, bool partial) {
  const std::vector<int32_t>& ids = resolve_ids(env_id);
  front_->check_sync_send(ids.size(), partial);
  const bool holds = pool_->sync() && ids.size() != static_cast<size_t>(pool_->options().num_envs);
  nb::object rows = convert_actions(actions, ids);
  front_->check_steppable(ids, holds);
  const auto* data = static_cast<const std::byte*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(rows.ptr())));
  if (!holds) {
    const Command step = Command::kStep;
    pool_->dispatch(ids.data(), ids.size(), &step, 1, data);
    return;
  }
  front_->plan_held(ids, held_ids_, held_cmds_);  // the stepped envs first (their rows' order), then the held
  pool_->dispatch(held_ids_.data(), held_ids_.size(), held_cmds_.data(), held_cmds_.size(), data);
}

void NativePool::queue_reset(nb::handle mask, nb::dict seeds, nb::dict options, bool receive) {
  const auto pairs = seed_pairs(task_id_, max_seed_, seeds);
  std::vector<int32_t> ids;
  std::vector<Command> cmds;
  const std::vector<bool> m = mask.is_none() ? std::vector<bool>{} : nb::cast<std::vector<bool>>(mask);
  front_->plan_reset(mask.is_none() ? nullptr : &m, receive, ids, cmds);
  if (mask.is_none() || pool_->sync()) {  // a full reset, or any reset of a sync pool: drain first
    bool interrupted = false;
    WaitResult r;
    {
      nb::gil_scoped_release release;
      r = pool_->drain([&] { return check_signals(interrupted); });
    }
    finish_wait(r, "reset()");
  }
  // Refused before anything is stored: a reset that cannot fill a batch leaves no seed or option
  // behind for the env's next reset.
  front_->check_reset_fills(ids.size(), receive);
  for (const auto& [env, seed] : pairs) pool_->set_seed(env, seed);
  for (auto [name, per_env] : options)
    for (auto [k, v] : nb::cast<nb::dict>(per_env))
      pool_->set_reset_option(nb::cast<int32_t>(k), nb::cast<std::string>(name), nb::cast<std::vector<double>>(v));
  pool_->dispatch(ids.data(), ids.size(), cmds.data(), cmds.size(), nullptr);
}

void NativePool::wait_batch(std::optional<double> timeout, const char* what) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout) {
    if (std::isnan(*timeout) || *timeout < 0) throw nb::value_error("timeout must be a number of seconds >= 0");
    if (*timeout < kNoDeadlineSeconds)
      deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                        std::chrono::duration<double>(*timeout));
  }
  bool interrupted = false;
  WaitResult r;
  {
    nb::gil_scoped_release release;
    r = pool_->wait_batch(deadline, [&] { return check_signals(interrupted); });
  }
  finish_wait(r, what);
}

void NativePool::finish_wait(WaitResult r, const char* what) const {
  switch (r) {
    case WaitResult::kReady: return;
    case WaitResult::kInterrupted: throw nb::python_error();  // the KeyboardInterrupt (or the handler's error)
    case WaitResult::kClosed: raise_closed(what);
    case WaitResult::kTimeout:
      PyErr_SetString(PyExc_TimeoutError, "recv() timed out before a batch was ready");
      throw nb::python_error();
  }
}

const std::vector<int32_t>& NativePool::resolve_ids(nb::handle env_id) {
  if (env_id.is_none()) return front_->awaiting_all();
  nb::object ids = id_array(env_id, "env_id");
  auto* c = reinterpret_cast<PyArrayObject*>(ids.ptr());
  return front_->check_ids(static_cast<const int64_t*>(PyArray_DATA(c)), static_cast<size_t>(PyArray_SIZE(c)));
}

// A C-contiguous array of the pool's action dtype with one row per id.
nb::object NativePool::convert_actions(nb::handle actions, const std::vector<int32_t>& ids) {
  const SpaceSpec& act = pool_->spaces().action;
  const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
  if (actions.is_none()) throw nb::type_error(call_message(Msg::kActionsMissing).c_str());
  PyObject* arr = PyArray_FromAny(actions.ptr(), nullptr, 0, 0, 0, nullptr);
  if (!arr) throw nb::python_error();
  nb::object holder = nb::steal(arr);
  auto* a = reinterpret_cast<PyArrayObject*>(arr);
  const npy_intp n = static_cast<npy_intp>(ids.size());
  bool shape_ok = PyArray_NDIM(a) == 1 + static_cast<int>(discrete ? 0 : act.shape.size()) && PyArray_DIM(a, 0) == n;
  if (shape_ok && !discrete)
    for (size_t d = 0; d < act.shape.size(); ++d)
      shape_ok = shape_ok && PyArray_DIM(a, static_cast<int>(d + 1)) == act.shape[d];
  if (!shape_ok) {  // the shapes as Python writes tuples
    std::ostringstream expected, got;
    expected << "(" << n;
    if (!discrete)
      for (auto d : act.shape) expected << ", " << d;
    expected << (discrete || act.shape.empty() ? ",)" : ")");
    got << "(";
    for (int d = 0; d < PyArray_NDIM(a); ++d) got << (d ? ", " : "") << PyArray_DIM(a, d);
    got << (PyArray_NDIM(a) == 1 ? ",)" : ")");
    throw nb::value_error(
        call_message(Msg::kActionShape, {{"where", ""}, {"expected", expected.str()}, {"got", got.str()}}).c_str());
  }
  if (discrete) {
    if (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a))
      throw nb::type_error(
          call_message(Msg::kActionIntegers, {{"space", "Discrete"}, {"dtype", dtype_text(a)}}).c_str());
  } else if (!(PyArray_ISFLOAT(a) || PyArray_ISINTEGER(a)) || PyArray_ISBOOL(a)) {
    throw nb::type_error(call_message(Msg::kActionReals, {{"dtype", dtype_text(a)}}).c_str());
  }
  const int target = discrete ? NPY_INT64 : npy_type(act.dtype);
  if (target == NPY_FLOAT32 && PyArray_TYPE(a) == NPY_FLOAT64) {  // before the cast, which would warn
    PyObject* wide = PyArray_FromAny(arr, PyArray_DescrFromType(NPY_FLOAT64), 0, 0,
                                     NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
    if (!wide) throw nb::python_error();
    nb::object wide_holder = nb::steal(wide);
    front_->check_fits_float32(static_cast<const double*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(wide))), ids);
  }
  PyObject* conv = PyArray_FromAny(arr, PyArray_DescrFromType(target), 0, 0,
                                   NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr);
  if (!conv) throw nb::python_error();
  nb::object rows = nb::steal(conv);
  front_->check_action_values(static_cast<const std::byte*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(conv))),
                              ids);
  return rows;
}

// The env ids render() draws: every env for None, else an int or 1-D array of distinct ids.
std::vector<int32_t> NativePool::render_ids(nb::handle env_ids) {
  if (env_ids.is_none()) return front_->render_all();
  nb::object ids = id_array(env_ids, "env_ids");
  auto* c = reinterpret_cast<PyArrayObject*>(ids.ptr());
  return front_->check_render_ids(static_cast<const int64_t*>(PyArray_DATA(c)), static_cast<size_t>(PyArray_SIZE(c)));
}

// The finished batch as numpy arrays: (obs, reward, terminated, truncated, info), or with `dm`
// (timestep, (info, terminated, truncated)) as step_dm returns it.
nb::tuple NativePool::take_batch(bool dm) {
  std::vector<EnvFailure> failures;
  std::byte* blk = pool_->finish_recv(failures);
  PyObject* owner_raw = make_owner(pool_->recycler(), blk);
  nb::object owner = nb::steal(owner_raw);
  if (!failures.empty()) raise_failures(failures);
  BatchOutputs out = views_->outputs(owner_raw, blk, pool_->layout());
  if (dm) return dm_->timestep(owner_raw, blk, pool_->layout(), out);
  return nb::make_tuple(out.obs, out.reward, out.terminated, out.truncated, out.info);
}

void NativePool::raise_failures(const std::vector<EnvFailure>& failures) {
  const std::string msg = front_->failure_message(failures);
  nb::list ids;
  for (const auto& f : failures) ids.append(f.env_id);
  const nb::object& type = error_types().env_error;
  if (!type.is_valid()) raise(nb::object(), PyExc_RuntimeError, msg);
  nb::object err = type(msg, failures[0].env_id, ids, failures[0].message);
  PyErr_SetObject(type.ptr(), err.ptr());
  throw nb::python_error();
}

ErrorTypes& error_types() {
  static ErrorTypes* types = new ErrorTypes();  // never destroyed: Python objects outlive static teardown
  return *types;
}

nb::object& image_reader() {
  static nb::object* reader = new nb::object();  // never destroyed, as error_types()
  return *reader;
}

void bind_native_pool(nb::module_& m) {
  // The call front's errors (call_front.h) as Python's.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ResetNeededError& e) {
      const nb::object& type = error_types().reset_needed;
      PyErr_SetString(type.is_valid() ? type.ptr() : PyExc_RuntimeError, e.what());
    } catch (const CallTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const RenderUnavailableError& e) {  // a pool of frame observations cannot be made
      const nb::object& type = error_types().render_error;
      if (!type.is_valid()) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
      }
      nb::object err = type(e.what(), -1, nb::list());  // env_id -1, no env ids: no env was made
      PyErr_SetObject(type.ptr(), err.ptr());
    }
  });

  // Under Gymnasium's names (gymnasium.vector.AutoresetMode): the facade's mode reaches the pool
  // as module.AutoresetMode[mode.name].
  nb::enum_<AutoresetMode>(m, "AutoresetMode", "Gymnasium 1.4's autoreset modes, by Gymnasium's names.")
      .value("NEXT_STEP", AutoresetMode::kNextStep)
      .value("SAME_STEP", AutoresetMode::kSameStep)
      .value("DISABLED", AutoresetMode::kDisabled);

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
      .def(nb::init<const std::string&, nb::dict, const PoolOptions&, nb::dict>(), nb::arg("task_id"),
           nb::arg("config"), nb::arg("options"), nb::arg("seeds"),
           "seeds: {env id: seed}, as reset() takes them; an env without one draws fresh OS entropy.")
      .def_prop_ro("spaces", &NativePool::spaces, nb::rv_policy::reference_internal)
      .def_prop_ro("options", &NativePool::options, nb::rv_policy::reference_internal)
      .def("send", &NativePool::send, nb::arg("actions").none(), nb::arg("env_id").none() = nb::none(), nb::kw_only(),
           nb::arg("partial") = false,
           "partial: a sync pool may step only the envs in env_id; the others hold and report their current "
           "observation (reward 0, flags false).")
      .def("recv", &NativePool::recv, nb::arg("timeout").none() = nb::none(),
           "timeout: seconds (checked by the facade, envhive.checks) or None.")
      .def("step", &NativePool::step, nb::arg("actions").none(), nb::arg("env_id").none() = nb::none(), nb::kw_only(),
           nb::arg("partial") = false)
      .def("step_dm", &NativePool::step_dm, nb::arg("actions").none(), nb::arg("env_id").none() = nb::none(),
           "step() as dm_env sees it: (timestep, (info, terminated, truncated)), timestep a timestep_type of "
           "(step_type, reward, discount, obs), step_type int8 (FIRST 0, MID 1, LAST 2) and discount float32, "
           "both read-only.")
      .def("recv_dm", &NativePool::recv_dm, nb::arg("timeout").none() = nb::none(),
           "recv() as dm_env sees it (see step_dm).")
      .def_prop_rw(
          "timestep_type", [](NativePool& p) { return p.dm().timestep_type(); },
          [](NativePool& p, nb::handle type) { p.dm().set_timestep_type(type); },
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

  bind_pool_abi(m);
}

}  // namespace envhive::bindings
