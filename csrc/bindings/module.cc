// An extension module: the task metadata of the families it carries, and NativePool. Each family
// module (_native, _mujoco, _atari, and out-of-tree plug-ins built with the SDK) compiles this
// file with its own name (ENVHIVE_MODULE_NAME) and its own register_module_tasks(), so families
// with heavy or GPL dependencies stay in modules of their own; every module is a complete engine.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#include <numpy/arrayobject.h>

#include <thread>

#include "../core/task.h"
#include "../core/numpy_kernels.h"
#include "call_front.h"
#include "module_tasks.h"
#include "family_registration.h"
#include "native_pool.h"
#include "numpy_kernel_install.h"
#include "protocol.h"
#include "spec_types.h"

namespace nb = nanobind;
using namespace envhive;
using namespace envhive::bindings;

namespace {

// The registry once envhive has registered the module's families (register_families): every call
// that reads tasks goes through it.
TaskRegistry& registered_tasks() {
  if (!module_registered())
    throw nb::value_error(
        "this family module's tasks are not registered yet: envhive.catalog registers them when it loads the "
        "module (import envhive and make a task; do not import the module directly)");
  return task_registry();
}

const TaskDef& find_task(const std::string& id) {
  if (const TaskDef* t = registered_tasks().find(id)) return *t;
  throw nb::key_error(("unknown task id '" + id + "'").c_str());
}

TaskInfo task_info(const std::string& id) {
  const TaskDef& t = find_task(id);
  return {t.meta, t.config};
}

Spaces task_spaces(const std::string& id, nb::dict config) {
  const TaskDef& t = find_task(id);
  const Config c = config_from_py(t, config);
  return t.resolve_spaces(c);
}

// The JSON-ready form of a space; envhive.spaces.SpaceDecl reads it back.
nb::dict space_json(const SpaceSpec& s) {
  nb::dict d;
  d["kind"] = space_kind_name(s.kind);
  d["dtype"] = dtype_name(s.dtype);
  d["shape"] = nb::cast(s.shape);
  d["low"] = nb::cast(s.low);
  d["high"] = nb::cast(s.high);
  d["n"] = s.n;
  d["start"] = s.start;
  if (s.kind == SpaceSpec::Kind::kText) {
    d["min_length"] = s.min_length;
    d["charset"] = s.charset;
  }
  if (!s.is_leaf()) {
    nb::list items;
    for (const auto& [name, item] : s.items) items.append(nb::make_tuple(name, space_json(item)));
    d["items"] = items;
  }
  return d;
}

// A task's frames (RenderSpec), or None when it has no renderer; envhive.spaces.RenderDecl reads it.
nb::object render_json(const RenderSpec& r) {
  if (!r.available()) return nb::none();
  nb::dict d;
  d["height"] = r.height;
  d["width"] = r.width;
  d["fps"] = r.fps;
  d["threads"] = r.threads;
  return d;
}

// What `import envhive`, `envhive list` and `envhive info` need without loading this module:
// written into <module>.tasks.json by the build (csrc/bindings/write_module_metadata.py). Every
// task's spaces are resolved with its default config, which also validates them at build time (a
// bad declaration fails the build). Spaces that need what the build cannot reach (MuJoCo models
// from a Gymnasium not installed where it builds) are left out: envhive then asks the module.
nb::dict task_manifest() {
  nb::dict tasks;
  for (const TaskDef& t : registered_tasks().tasks()) {
    nb::dict entry;
    entry["family"] = t.meta.family;
    entry["doc"] = t.meta.doc;
    entry["max_episode_steps"] = t.meta.max_episode_steps;
    entry["hidden"] = t.meta.hidden;
    entry["task_time_limit"] = t.meta.task_time_limit;
    nb::list config;
    for (const auto& f : t.config) config.append(nb::make_tuple(f.name, config_value_to_py(f.default_value), f.doc));
    entry["config"] = config;
    nb::list reset_options;
    for (const auto& [name, doc] : t.meta.reset_options) reset_options.append(nb::make_tuple(name, doc));
    entry["reset_options"] = reset_options;
    Spaces s;
    try {
      s = t.resolve_spaces(t.resolve_config({}));
    } catch (const InvalidDeclaration&) {
      throw;
    } catch (const std::exception& e) {
      entry["spaces"] = nb::none();
      entry["spaces_unknown"] = e.what();
      tasks[t.meta.id.c_str()] = entry;
      continue;
    }
    nb::dict spaces;
    spaces["observation"] = space_json(s.observation);
    spaces["action"] = space_json(s.action);
    nb::list infos;
    for (const auto& i : s.infos) {
      nb::dict info;
      info["name"] = i.name;
      info["dtype"] = dtype_name(i.dtype);
      info["shape"] = nb::cast(i.shape);
      infos.append(info);
    }
    spaces["infos"] = infos;
    spaces["render"] = render_json(s.render);
    if (!s.agents.empty()) {
      nb::list agents;
      for (const auto& agent : s.agents) {
        nb::dict a;
        a["name"] = agent.name;
        a["observation"] = space_json(agent.observation);
        a["action"] = space_json(agent.action);
        agents.append(a);
      }
      spaces["agents"] = agents;
    }
    entry["spaces"] = spaces;
    tasks[t.meta.id.c_str()] = entry;
  }
  return tasks;
}

}  // namespace

NB_MODULE(ENVHIVE_MODULE_NAME, m) {
  if (_import_array() < 0) throw nb::python_error();
  m.doc() = "envhive family module: task metadata and NativePool (see envhive.catalog).";
  bind_spec_types(m);
  bind_native_pool(m);
  m.attr("PROTOCOL") = kProtocol;
  m.attr("ENVHIVE_VERSION") = ENVHIVE_VERSION_STRING;
  m.attr("BUILD_ABI") = build_abi();

  // numpy's own loops and BLAS for the tasks (core/numpy_kernels.h), before any task is registered.
  install_numpy_kernels();
  bind_family_registration(m);

  m.def("task_ids", [] {
    std::vector<std::string> ids;
    for (const auto& t : registered_tasks().tasks()) ids.push_back(t.meta.id);
    return ids;
  });
  m.def("task_info", &task_info, nb::arg("task_id"));
  m.def("task_spaces", &task_spaces, nb::arg("task_id"), nb::arg("config"),
        "The task's spaces for a config (name -> value; unset fields take their defaults).");
  m.def("task_manifest", &task_manifest);
  m.def(
      "set_error_types",
      [](nb::object env_error, nb::object reset_needed, nb::object pool_closed, nb::object pool_busy,
         nb::object render_error) {
        error_types() = {env_error, reset_needed, pool_closed, pool_busy, render_error};
      },
      nb::kw_only(), nb::arg("env_error"), nb::arg("reset_needed"), nb::arg("pool_closed"), nb::arg("pool_busy"),
      nb::arg("render_error"));
  m.def(
      "set_call_messages",
      [](const std::vector<std::pair<std::string, std::string>>& templates) {
        const std::vector<std::string> missing = install_call_messages(templates);
        if (!missing.empty()) {
          std::string names;
          for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
          throw nb::value_error(("the call rules' templates lack " + names).c_str());
        }
      },
      nb::arg("templates"),
      "The messages of the call rules, (name, template) pairs: envhive.call_rules.TEMPLATES.");
  m.def(
      "set_image_reader", [](nb::object reader) { image_reader() = std::move(reader); }, nb::arg("reader"),
      "The function that reads a render image: path -> (height, width, 4) uint8 array.");
  bind_numpy_kernel_checks(m);
  m.def("hardware_threads", [] { return std::max(1u, std::thread::hardware_concurrency()); });

  bind_module_extras(m);
}
