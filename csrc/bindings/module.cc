// An extension module: task metadata, and NativePool, the pool as Python sees it. Each family
// module (_native, and later ones for MuJoCo and Atari) compiles this file with its own name
// (ENVHIVE_MODULE_NAME) and its own register_module_tasks(), so families with heavy or GPL
// dependencies stay in modules of their own.
// Everything Python hands in is validated here, before anything is queued; results leave as
// numpy arrays that view a batch block owned by a capsule (no copy, no per-env object).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#include <numpy/arrayobject.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "../core/pool.h"
#include "module_tasks.h"

namespace nb = nanobind;
using namespace envhive;

namespace {

nb::object g_env_error;  // envhive.errors.EnvError, installed at import

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

const TaskDef& find_task(const std::string& id) {
  for (const auto& t : task_registry())
    if (t.id == id) return t;
  throw nb::key_error(("unknown task id '" + id + "'").c_str());
}

nb::object config_value_to_py(const ConfigValue& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<double>>) {
          nb::list out;
          for (double d : x) out.append(nb::float_(d));
          return out;
        } else {
          return nb::cast(x);
        }
      },
      v);
}

ConfigValue config_value_from_py(const std::string& name, nb::handle h) {
  if (PyBool_Check(h.ptr())) return static_cast<bool>(nb::cast<bool>(h));
  if (PyLong_Check(h.ptr())) return static_cast<int64_t>(nb::cast<int64_t>(h));
  if (PyFloat_Check(h.ptr())) return nb::cast<double>(h);
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  if (PySequence_Check(h.ptr())) {
    std::vector<double> out;
    for (auto item : nb::iter(h)) out.push_back(nb::cast<double>(item));
    return out;
  }
  throw nb::type_error(("config value for '" + name + "' has an unsupported type").c_str());
}

Config config_from_py(const TaskDef& task, nb::dict values) {
  std::map<std::string, ConfigValue> m;
  for (const auto& f : task.config) m[f.name] = f.default_value;
  for (auto [k, v] : values) {
    std::string key = nb::cast<std::string>(k);
    m[key] = config_value_from_py(key, v);
  }
  return Config(std::move(m));
}

nb::dict space_to_py(const SpaceSpec& s) {
  nb::dict d;
  d["kind"] = s.kind == SpaceSpec::Kind::kBox ? "box" : "discrete";
  d["dtype"] = dtype_name(s.dtype);
  d["shape"] = nb::tuple(nb::cast(s.shape));
  d["low"] = nb::cast(s.low);
  d["high"] = nb::cast(s.high);
  d["n"] = s.n;
  d["start"] = s.start;
  return d;
}

nb::dict spaces_to_py(const Spaces& sp) {
  nb::dict d;
  d["observation"] = space_to_py(sp.observation);
  d["action"] = space_to_py(sp.action);
  nb::list infos;
  for (const auto& i : sp.infos) {
    nb::dict info;
    info["name"] = i.name;
    info["dtype"] = dtype_name(i.dtype);
    info["shape"] = nb::tuple(nb::cast(i.shape));
    infos.append(info);
  }
  d["infos"] = infos;
  return d;
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
nb::object view(PyObject* owner, void* data, int typenum, int nd, const npy_intp* dims) {
  PyObject* arr = PyArray_New(&PyArray_Type, nd, const_cast<npy_intp*>(dims), typenum, nullptr, data, 0,
                              NPY_ARRAY_CARRAY, nullptr);
  if (!arr) throw nb::python_error();
  Py_INCREF(owner);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return nb::steal(arr);
}

class NativePool {
 public:
  NativePool(const std::string& task_id, nb::dict config, int num_envs, int batch_size, int num_threads,
             int thread_affinity_offset, const std::string& autoreset_mode, int64_t max_episode_steps,
             std::vector<uint64_t> seeds) {
    const TaskDef& task = find_task(task_id);
    PoolOptions o;
    o.num_envs = num_envs;
    o.batch_size = batch_size;
    o.num_threads = num_threads;
    o.thread_affinity_offset = thread_affinity_offset;
    o.max_episode_steps = max_episode_steps;
    if (autoreset_mode == "next_step")
      o.autoreset_mode = AutoresetMode::kNextStep;
    else if (autoreset_mode == "same_step")
      o.autoreset_mode = AutoresetMode::kSameStep;
    else if (autoreset_mode == "disabled")
      o.autoreset_mode = AutoresetMode::kDisabled;
    else
      throw nb::value_error(("unknown autoreset_mode '" + autoreset_mode + "'").c_str());
    if (num_envs < 1 || batch_size < 1 || batch_size > num_envs || num_threads < 1)
      throw nb::value_error("invalid num_envs / batch_size / num_threads");
    if (!seeds.empty() && seeds.size() != static_cast<size_t>(num_envs))
      throw nb::value_error("seeds must have one entry per env");
    Config cfg = config_from_py(task, config);
    pool_ = std::make_unique<Pool>(task, std::move(cfg), o, seeds);
    const auto& sp = pool_->spaces();
    obs_type_ = npy_type(sp.observation.dtype);
    obs_dims_.push_back(batch_size);
    for (auto d : sp.observation.shape) obs_dims_.push_back(d);
    for (const auto& info : sp.infos) {
      info_names_.push_back(nb::str(info.name.c_str()));
      std::vector<npy_intp> dims{batch_size};
      for (auto d : info.shape) dims.push_back(d);
      info_dims_.push_back(dims);
    }
    all_ids_.resize(static_cast<size_t>(num_envs));
    for (int i = 0; i < num_envs; ++i) all_ids_[static_cast<size_t>(i)] = i;
    stamp_.assign(static_cast<size_t>(num_envs), 0);
  }

  nb::dict spaces() const { return spaces_to_py(pool_->spaces()); }
  bool closed() const { return !pool_ || pool_->closed(); }

  void close() {
    if (pool_) {
      nb::gil_scoped_release release;
      pool_->close();
    }
  }

  void send(nb::handle actions, nb::handle env_id) {
    check_open();
    const std::vector<int32_t>& ids = resolve_ids(env_id);
    nb::object rows = convert_actions(actions, ids);
    for (int32_t id : ids) {
      if (pool_->options().autoreset_mode == AutoresetMode::kDisabled && pool_->episode_over(id))
        throw nb::value_error(("env " + std::to_string(id) +
                               " has ended its episode and autoreset_mode is 'disabled': reset it first with "
                               "reset(options={'reset_mask': mask})")
                                  .c_str());
    }
    const Command step = Command::kStep;
    pool_->dispatch(ids.data(), ids.size(), &step, 1,
                    static_cast<const std::byte*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(rows.ptr()))));
  }

  nb::tuple recv(std::optional<double> timeout) {
    check_open();
    if (pool_->outstanding() < pool_->options().batch_size) {
      std::ostringstream msg;
      msg << "recv() would wait forever: " << pool_->outstanding() << " env(s) in flight, batch_size is "
          << pool_->options().batch_size << "; send() actions (or async_reset()) first";
      throw nb::value_error(msg.str().c_str());
    }
    if (timeout && *timeout < 0) throw nb::value_error("timeout must be >= 0");
    wait(timeout);
    return take_batch(true);
  }

  nb::tuple step(nb::handle actions, nb::handle env_id) {
    send(actions, env_id);
    return recv(std::nullopt);
  }

  // Reset: drains anything in flight, then resets the envs in `mask` (all when None), seeding
  // those listed in `seeds` (env id -> seed). Sync mode returns every env's observation (those
  // not reset report their current one); async mode returns the next batch.
  nb::tuple reset(nb::handle mask, nb::dict seeds, nb::dict options, bool receive) {
    check_open();
    const int n = pool_->options().num_envs;
    std::vector<Command> cmds(static_cast<size_t>(n), Command::kReset);
    std::vector<int32_t> ids;
    const bool partial = !mask.is_none();
    const bool drain = !partial || pool_->sync();
    if (partial) {
      auto m = nb::cast<std::vector<bool>>(mask);
      for (int i = 0; i < n; ++i) {
        if (m[static_cast<size_t>(i)]) {
          ids.push_back(i);
        } else if (pool_->sync()) {
          ids.push_back(i);
          cmds[static_cast<size_t>(ids.size() - 1)] = Command::kEmit;
        }
      }
      if (!drain) {
        for (int32_t id : ids)
          if (pool_->in_flight(id))
            throw nb::value_error(("cannot reset env " + std::to_string(id) + ": it is in flight; recv() it first").c_str());
      }
    } else {
      ids = all_ids_;
    }
    if (drain) {
      bool interrupted = false;
      bool ok;
      {
        nb::gil_scoped_release release;
        ok = pool_->drain([&] { return check_signals(interrupted); });
      }
      if (!ok) throw nb::python_error();
    }
    for (auto [k, v] : seeds) pool_->set_seed(nb::cast<int32_t>(k), nb::cast<uint64_t>(v));
    // options: name -> {env id: [values]} for the envs being reset.
    for (auto [name, per_env] : options)
      for (auto [k, v] : nb::cast<nb::dict>(per_env))
        pool_->set_reset_option(nb::cast<int32_t>(k), nb::cast<std::string>(name), nb::cast<std::vector<double>>(v));
    if (receive && pool_->outstanding() + static_cast<int>(ids.size()) < pool_->options().batch_size)
      throw nb::value_error(("resetting " + std::to_string(ids.size()) + " env(s) cannot fill a batch of " +
                             std::to_string(pool_->options().batch_size) + " with " +
                             std::to_string(pool_->outstanding()) + " others in flight; recv() would wait forever")
                                .c_str());
    pool_->dispatch(ids.data(), ids.size(), cmds.data(), ids.size(), nullptr);
    if (!receive) return nb::tuple();
    wait(std::nullopt);
    nb::tuple full = take_batch(false);
    return nb::make_tuple(full[0], full[4]);
  }

  int outstanding() const { return pool_ ? pool_->outstanding() : 0; }

 private:
  void check_open() const {
    if (closed()) throw nb::value_error("this envhive pool is closed");
  }

  static bool check_signals(bool& interrupted) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      return true;
    }
    return false;
  }

  void wait(std::optional<double> timeout) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (timeout)
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*timeout));
    bool interrupted = false;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = pool_->wait_batch(deadline, [&] { return check_signals(interrupted); });
    }
    if (ok) return;
    if (interrupted) throw nb::python_error();
    PyErr_SetString(PyExc_TimeoutError, "recv() timed out before a batch was ready");
    throw nb::python_error();
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
        throw nb::value_error(("env_id " + std::to_string(v[i]) + " is out of range [0, " + std::to_string(n) + ")").c_str());
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
    if (pool_->sync() && m != n)
      throw nb::value_error(("sync mode (batch_size == num_envs) steps all " + std::to_string(n) +
                             " envs together; got env_id for " + std::to_string(m) +
                             ". Use batch_size < num_envs for async stepping")
                                .c_str());
    return ids_;
  }

  // Returns a C-contiguous array of the pool's action dtype with one row per id.
  nb::object convert_actions(nb::handle actions, const std::vector<int32_t>& ids) {
    const SpaceSpec& act = pool_->spaces().action;
    const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
    PyObject* arr = PyArray_FromAny(actions.ptr(), nullptr, 0, 0, 0, nullptr);
    if (!arr) throw nb::python_error();
    nb::object holder = nb::steal(arr);
    auto* a = reinterpret_cast<PyArrayObject*>(arr);
    const npy_intp n = static_cast<npy_intp>(ids.size());
    // Shape: (n, *action_shape).
    bool shape_ok = PyArray_NDIM(a) == 1 + static_cast<int>(discrete ? 0 : act.shape.size()) && PyArray_DIM(a, 0) == n;
    if (shape_ok && !discrete)
      for (size_t d = 0; d < act.shape.size(); ++d) shape_ok = shape_ok && PyArray_DIM(a, static_cast<int>(d + 1)) == act.shape[d];
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
      if (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a)) {
        std::string got = nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))));
        throw nb::type_error(("actions for a Discrete action space must be integers, got dtype " + got).c_str());
      }
    } else if (!(PyArray_ISFLOAT(a) || PyArray_ISINTEGER(a)) || PyArray_ISBOOL(a)) {
      std::string got = nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))));
      throw nb::type_error(("actions for a Box action space must be real numbers, got dtype " + got).c_str());
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

  // Wraps the finished batch in numpy arrays; `full` adds nothing for reset (obs and info only).
  nb::tuple take_batch(bool /*full*/) {
    std::vector<EnvFailure> failures;
    std::byte* blk = pool_->finish_recv(failures);
    PyObject* owner_raw = make_owner(pool_->recycler(), blk);
    nb::object owner = nb::steal(owner_raw);
    if (!failures.empty()) raise_failures(failures);
    const auto& L = pool_->layout();
    const npy_intp rows[1] = {pool_->options().batch_size};
    nb::object obs = view(owner_raw, blk + L.obs, obs_type_, static_cast<int>(obs_dims_.size()), obs_dims_.data());
    nb::object reward = view(owner_raw, blk + L.reward, NPY_FLOAT64, 1, rows);
    nb::object terminated = view(owner_raw, blk + L.terminated, NPY_BOOL, 1, rows);
    nb::object truncated = view(owner_raw, blk + L.truncated, NPY_BOOL, 1, rows);
    nb::dict info;
    nb::object env_id = view(owner_raw, blk + L.env_id, NPY_INT32, 1, rows);
    info["env_id"] = env_id;
    info["elapsed_step"] = view(owner_raw, blk + L.elapsed_step, NPY_INT32, 1, rows);
    const auto& infos = pool_->spaces().infos;
    for (size_t f = 0; f < infos.size(); ++f)
      info[info_names_[f]] = view(owner_raw, blk + L.infos[f], npy_type(infos[f].dtype),
                                  static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
    if (pool_->options().autoreset_mode == AutoresetMode::kSameStep) add_final(info, owner_raw, blk, env_id);
    return nb::make_tuple(obs, reward, terminated, truncated, info);
  }

  // SAME_STEP: Gymnasium's final_obs (object array, None where no episode ended) and
  // final_info (dict of arrays), each with its boolean mask; present only when an episode ended.
  void add_final(nb::dict& info, PyObject* owner, std::byte* blk, nb::handle env_id) {
    const auto& L = pool_->layout();
    const int rows = pool_->options().batch_size;
    const bool* mask = reinterpret_cast<const bool*>(blk + L.final_mask);
    bool any = false;
    for (int r = 0; r < rows; ++r) any = any || mask[r];
    if (!any) return;
    const npy_intp dims[1] = {rows};
    nb::object mask_arr = view(owner, blk + L.final_mask, NPY_BOOL, 1, dims);
    PyObject* objs = PyArray_SimpleNew(1, const_cast<npy_intp*>(dims), NPY_OBJECT);
    if (!objs) throw nb::python_error();
    nb::object final_obs = nb::steal(objs);
    const int nd = static_cast<int>(obs_dims_.size()) - 1;
    for (int r = 0; r < rows; ++r) {
      PyObject* item;
      if (mask[r]) {
        item = view(owner, blk + L.final_obs + static_cast<size_t>(r) * L.obs_row_bytes, obs_type_, nd, obs_dims_.data() + 1)
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
    final_info["elapsed_step"] = view(owner, blk + L.final_elapsed_step, NPY_INT32, 1, dims);
    final_info["_elapsed_step"] = mask_arr;
    const auto& infos = pool_->spaces().infos;
    for (size_t f = 0; f < infos.size(); ++f) {
      final_info[info_names_[f]] = view(owner, blk + L.final_infos[f], npy_type(infos[f].dtype),
                                        static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
      final_info[nb::str(("_" + infos[f].name).c_str())] = mask_arr;
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
    nb::object err = g_env_error(msg.str(), failures[0].env_id, ids);
    PyErr_SetObject(g_env_error.ptr(), err.ptr());
    throw nb::python_error();
  }

  std::unique_ptr<Pool> pool_;
  int obs_type_ = NPY_FLOAT32;
  std::vector<npy_intp> obs_dims_;
  std::vector<nb::str> info_names_;
  std::vector<std::vector<npy_intp>> info_dims_;
  std::vector<int32_t> all_ids_, ids_;
  std::vector<uint64_t> stamp_;
  uint64_t stamp_value_ = 0;
};

}  // namespace

#define ENVHIVE_NB_MODULE(name, m) NB_MODULE(name, m)
ENVHIVE_NB_MODULE(ENVHIVE_MODULE_NAME, m) {
  if (_import_array() < 0) throw nb::python_error();
  if (task_registry().empty()) register_module_tasks(task_registry());

  m.def("task_ids", [] {
    std::vector<std::string> ids;
    for (const auto& t : task_registry()) ids.push_back(t.id);
    return ids;
  });
  m.def("task_info", [](const std::string& id) {
    const TaskDef& t = find_task(id);
    nb::dict d;
    d["id"] = t.id;
    d["family"] = t.family;
    d["doc"] = t.doc;
    nb::list fields;
    for (const auto& f : t.config) fields.append(nb::make_tuple(f.name, config_value_to_py(f.default_value), f.doc));
    d["config"] = fields;
    nb::list reset_options;
    for (const auto& [name, doc] : t.reset_options) reset_options.append(nb::make_tuple(name, doc));
    d["reset_options"] = reset_options;
    return d;
  });
  // What `import envhive` needs to register every task without loading this module: written into
  // <module>.tasks.json by the build (csrc/bindings/write_task_manifest.py).
  m.def("task_manifest", [] {
    nb::dict tasks;
    for (const auto& t : task_registry()) {
      int64_t max_steps = 0;
      for (const auto& f : t.config)
        if (f.name == "max_episode_steps" && std::holds_alternative<int64_t>(f.default_value))
          max_steps = std::get<int64_t>(f.default_value);
      nb::dict entry;
      entry["family"] = t.family;
      entry["max_episode_steps"] = max_steps;
      tasks[t.id.c_str()] = entry;
    }
    return tasks;
  });
  m.def("task_spaces", [](const std::string& id, nb::dict config) {
    const TaskDef& t = find_task(id);
    return spaces_to_py(t.spaces(config_from_py(t, config)));
  });
  m.def("set_error_type", [](nb::object cls) { g_env_error = cls; });
  m.def("hardware_threads", [] { return std::max(1u, std::thread::hardware_concurrency()); });

  nb::class_<NativePool>(m, "NativePool")
      .def(nb::init<const std::string&, nb::dict, int, int, int, int, const std::string&, int64_t, std::vector<uint64_t>>(),
           nb::arg("task_id"), nb::arg("config"), nb::arg("num_envs"), nb::arg("batch_size"), nb::arg("num_threads"),
           nb::arg("thread_affinity_offset"), nb::arg("autoreset_mode"), nb::arg("max_episode_steps"), nb::arg("seeds"))
      .def("spaces", &NativePool::spaces)
      .def("send", &NativePool::send, nb::arg("actions"), nb::arg("env_id").none())
      .def("recv", &NativePool::recv, nb::arg("timeout").none())
      .def("step", &NativePool::step, nb::arg("actions"), nb::arg("env_id").none())
      .def("reset", &NativePool::reset, nb::arg("mask").none(), nb::arg("seeds"), nb::arg("options"), nb::arg("receive"))
      .def("close", &NativePool::close)
      .def_prop_ro("closed", &NativePool::closed)
      .def_prop_ro("outstanding", &NativePool::outstanding);

  bind_module_extras(m);
}
