#include "spec_types.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>

namespace envhive::bindings {

ConfigValue config_value_from_py(const std::string& name, nb::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw nb::value_error(("config value for '" + name + "' does not fit in 64 bits").c_str());
    return static_cast<int64_t>(v);
  }
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyUnicode_Check(o)) return nb::cast<std::string>(h);
  const auto numbers = [&](nb::handle seq, const std::string& what) {
    std::vector<double> out;
    for (nb::handle item : nb::iter(seq)) {
      if (!PyFloat_Check(item.ptr()) && !(PyLong_Check(item.ptr()) && !PyBool_Check(item.ptr())))
        throw nb::type_error(("config value for '" + what + "' must be a list of numbers").c_str());
      out.push_back(PyFloat_AsDouble(item.ptr()));
    }
    return out;
  };
  if (PyDict_Check(o)) {
    ConfigTable table;
    for (auto [k, v] : nb::borrow<nb::dict>(h)) {
      if (!PyUnicode_Check(k.ptr()))
        throw nb::type_error(("config value for '" + name + "' must be a dict with str keys").c_str());
      const auto key = nb::cast<std::string>(k);
      const std::string what = name + "[" + key + "]";
      if (PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr()))
        table[key] = {PyFloat_AsDouble(v.ptr())};
      else if (PySequence_Check(v.ptr()) && !PyUnicode_Check(v.ptr()) && !PyBytes_Check(v.ptr()))
        table[key] = numbers(v, what);
      else
        throw nb::type_error(("config value for '" + what + "' must be a number or a list of numbers").c_str());
    }
    return table;
  }
  if (PySequence_Check(o) && !PyBytes_Check(o)) return numbers(h, name);
  throw nb::type_error(("config value for '" + name + "' has an unsupported type (bool, int, float, str, a list of "
                        "numbers or a dict of those)")
                           .c_str());
}

nb::object config_value_to_py(const ConfigValue& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<double>>) {
          nb::list out;
          for (double d : x) out.append(nb::float_(d));
          return out;
        } else if constexpr (std::is_same_v<T, ConfigTable>) {
          nb::dict out;  // a value of one number is that number, as the Python dicts these come from
          for (const auto& [key, values] : x) {
            if (values.size() == 1) {
              out[key.c_str()] = nb::float_(values[0]);
            } else {
              nb::list items;
              for (double d : values) items.append(nb::float_(d));
              out[key.c_str()] = items;
            }
          }
          return out;
        } else {
          return nb::cast(x);
        }
      },
      v);
}

Config config_from_py(const TaskDef& task, nb::dict values) {
  std::map<std::string, ConfigValue> m;
  for (auto [k, v] : values) {
    const auto key = nb::cast<std::string>(k);
    m[key] = config_value_from_py(key, v);
  }
  try {
    return task.resolve_config(m);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

const char* space_kind_name(SpaceSpec::Kind kind) {
  switch (kind) {
    case SpaceSpec::Kind::kBox: return "box";
    case SpaceSpec::Kind::kDiscrete: return "discrete";
    case SpaceSpec::Kind::kText: return "text";
    case SpaceSpec::Kind::kDict: return "dict";
    case SpaceSpec::Kind::kTuple: return "tuple";
  }
  return "?";
}

namespace {

nb::tuple shape_tuple(const std::vector<int64_t>& shape) {
  nb::list out;
  for (int64_t d : shape) out.append(d);
  return nb::tuple(out);
}

SpaceSpec make_box(const std::string& dtype, std::vector<int64_t> shape, std::vector<double> low,
                   std::vector<double> high) {
  SpaceSpec s = SpaceSpec::box(dtype_from_name(dtype), std::move(shape), std::move(low), std::move(high));
  return s;
}

}  // namespace

void bind_spec_types(nb::module_& m) {
  nb::class_<SpaceSpec>(m, "SpaceSpec",
                        "A single-env space as a task declares it: a Gymnasium Box, Discrete or Text, or (observations) "
                        "a Dict or Tuple of those.")
      .def_static("box", &make_box, nb::arg("dtype"), nb::arg("shape"), nb::arg("low"), nb::arg("high"),
                  "Box(low, high, shape, dtype); low/high hold one value (broadcast) or one per element.")
      .def_static("discrete", &SpaceSpec::discrete, nb::arg("n"), nb::arg("start") = 0, "Discrete(n, start).")
      .def_static("text", &SpaceSpec::text, nb::arg("max_length"), nb::arg("min_length") = 0,
                  nb::arg("charset") = "", "Text(max_length, min_length, charset): zero-padded UTF-8 bytes.")
      .def_static("dict", &SpaceSpec::dict, nb::arg("items"), "Dict of (key, space) items, in this order.")
      .def_static("tuple", &SpaceSpec::tuple, nb::arg("items"), "Tuple of spaces.")
      .def_prop_ro("kind", [](const SpaceSpec& s) { return std::string(space_kind_name(s.kind)); })
      .def_prop_ro("dtype", [](const SpaceSpec& s) { return std::string(dtype_name(s.dtype)); })
      .def_prop_ro("shape", [](const SpaceSpec& s) { return shape_tuple(s.shape); })
      .def_ro("low", &SpaceSpec::low)
      .def_ro("high", &SpaceSpec::high)
      .def_ro("n", &SpaceSpec::n)
      .def_ro("start", &SpaceSpec::start)
      .def_ro("min_length", &SpaceSpec::min_length)
      .def_ro("charset", &SpaceSpec::charset)
      .def_ro("items", &SpaceSpec::items, "Dict (key, space) / Tuple ('', space) items; empty for a leaf.");

  nb::class_<InfoSpec>(m, "InfoSpec", "An extra per-env output a task reports in info (a scalar or small array).")
      .def(
          "__init__",
          [](InfoSpec* self, std::string name, const std::string& dtype, std::vector<int64_t> shape) {
            new (self) InfoSpec{std::move(name), dtype_from_name(dtype), std::move(shape)};
          },
          nb::arg("name"), nb::arg("dtype"), nb::arg("shape") = std::vector<int64_t>{})
      .def_ro("name", &InfoSpec::name)
      .def_prop_ro("dtype", [](const InfoSpec& i) { return std::string(dtype_name(i.dtype)); })
      .def_prop_ro("shape", [](const InfoSpec& i) { return shape_tuple(i.shape); });

  nb::class_<ConfigField>(m, "ConfigField", "A task kwarg: its name, default value and doc.")
      .def(
          "__init__",
          [](ConfigField* self, std::string name, nb::handle default_value, std::string doc) {
            new (self) ConfigField{name, config_value_from_py(name, default_value), std::move(doc)};
          },
          nb::arg("name"), nb::arg("default"), nb::arg("doc") = "")
      .def_ro("name", &ConfigField::name)
      .def_prop_ro("default", [](const ConfigField& f) { return config_value_to_py(f.default_value); })
      .def_ro("doc", &ConfigField::doc);

  nb::class_<RenderSpec>(m, "RenderSpec", "The frames a task's renderer draws (height x width x 3 uint8).")
      .def_ro("height", &RenderSpec::height)
      .def_ro("width", &RenderSpec::width)
      .def_ro("fps", &RenderSpec::fps)
      .def_ro("threads", &RenderSpec::threads)
      .def_prop_ro("available", &RenderSpec::available);

  nb::class_<AgentSpec>(m, "AgentSpec", "One agent of a multi-agent task: its name, observation and action spaces.")
      .def_ro("name", &AgentSpec::name)
      .def_ro("observation", &AgentSpec::observation)
      .def_ro("action", &AgentSpec::action);

  nb::class_<Spaces>(m, "Spaces", "What a task exposes once its config is known.")
      .def_ro("observation", &Spaces::observation)
      .def_ro("action", &Spaces::action)
      .def_ro("infos", &Spaces::infos)
      .def_ro("render", &Spaces::render)
      .def_ro("agents", &Spaces::agents, "A multi-agent task's agents, in order; empty for a single-agent task.");

  nb::class_<TaskInfo>(m, "TaskInfo", "A registered task's metadata and config fields.")
      .def_prop_ro("id", [](const TaskInfo& t) { return t.meta.id; })
      .def_prop_ro("family", [](const TaskInfo& t) { return t.meta.family; })
      .def_prop_ro("doc", [](const TaskInfo& t) { return t.meta.doc; })
      .def_prop_ro("max_episode_steps", [](const TaskInfo& t) { return t.meta.max_episode_steps; })
      .def_prop_ro("reset_options", [](const TaskInfo& t) { return t.meta.reset_options; })
      .def_prop_ro("hidden", [](const TaskInfo& t) { return t.meta.hidden; })
      .def_prop_ro("task_time_limit", [](const TaskInfo& t) { return t.meta.task_time_limit; })
      .def_ro("config", &TaskInfo::config);
}

}  // namespace envhive::bindings
