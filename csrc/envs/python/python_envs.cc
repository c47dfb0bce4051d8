// register_compiled_task: appends (or replaces) a TaskDef for a compiled Python env at run time.
// The spec dict is built by envhive.authoring, which also keeps the compiled code alive for the
// life of the process (function addresses stay valid for every pool ever built from them).
#include "python_envs.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiled_env.h"

namespace nb = nanobind;

namespace envhive::python {

namespace {

DType parse_dtype(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"bool", DType::kBool},       {"uint8", DType::kUInt8},     {"int32", DType::kInt32},
      {"int64", DType::kInt64},     {"float32", DType::kFloat32}, {"float64", DType::kFloat64},
  };
  for (const auto& [n, d] : kNames)
    if (name == n) return d;
  throw nb::value_error(("unsupported dtype '" + name + "'").c_str());
}

SpaceSpec parse_space(nb::handle d) {
  const auto kind = nb::cast<std::string>(d["kind"]);
  if (kind == "discrete") return SpaceSpec::discrete(nb::cast<int64_t>(d["n"]), nb::cast<int64_t>(d["start"]));
  if (kind != "box") throw nb::value_error(("unknown space kind '" + kind + "'").c_str());
  return SpaceSpec::box(parse_dtype(nb::cast<std::string>(d["dtype"])), nb::cast<std::vector<int64_t>>(d["shape"]),
                        nb::cast<std::vector<double>>(d["low"]), nb::cast<std::vector<double>>(d["high"]));
}

ConfigValue parse_default(nb::handle h) {
  if (PyBool_Check(h.ptr())) return nb::cast<bool>(h);
  if (PyLong_Check(h.ptr())) return nb::cast<int64_t>(h);
  if (PyFloat_Check(h.ptr())) return nb::cast<double>(h);
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  return nb::cast<std::vector<double>>(h);
}

template <class T>
T fn_ptr(nb::handle address) {
  const auto a = nb::cast<uintptr_t>(address);
  if (a == 0) throw nb::value_error("null function address");
  return reinterpret_cast<T>(a);
}

// Ids registered here (so a Python env may replace its own earlier definition, never a built-in).
std::set<std::string>& compiled_ids() {
  static std::set<std::string> ids;
  return ids;
}

void register_compiled_task(nb::dict spec) {
  auto task = std::make_shared<CompiledTask>();
  task->id = nb::cast<std::string>(spec["id"]);
  auto labels = nb::cast<std::vector<std::string>>(spec["labels"]);
  if (labels.size() != 3) throw nb::value_error("labels must name reset, step and observe");
  for (int i = 0; i < 3; ++i) task->labels[i] = labels[static_cast<size_t>(i)];
  task->reset_fn = fn_ptr<ResetFn>(spec["reset_fn"]);
  task->step_fn = fn_ptr<StepFn>(spec["step_fn"]);
  task->state_bytes = nb::cast<size_t>(spec["state_bytes"]);
  task->config_bytes = nb::cast<size_t>(spec["config_bytes"]);
  task->reset_randoms = nb::cast<int>(spec["reset_randoms"]);
  task->step_randoms = nb::cast<int>(spec["step_randoms"]);
  if (task->reset_randoms < 0 || task->step_randoms < 0) throw nb::value_error("randoms must be >= 0");
  task->check_finite = nb::cast<bool>(spec["check_finite"]);
  task->spaces.observation = parse_space(spec["observation"]);
  task->spaces.action = parse_space(spec["action"]);

  TaskDef def;
  def.id = task->id;
  def.family = nb::cast<std::string>(spec["family"]);
  def.doc = nb::cast<std::string>(spec["doc"]);
  for (auto item : nb::cast<nb::list>(spec["config"])) {
    nb::handle f = item;
    const auto name = nb::cast<std::string>(f["name"]);
    def.config.push_back({name, parse_default(f["default"]), nb::cast<std::string>(f["doc"])});
    const auto kind = nb::cast<std::string>(f["kind"]);
    if (kind == "none") continue;  // a kwarg the pool reads (max_episode_steps), not in the record
    ConfigSlot slot;
    slot.name = name;
    slot.offset = nb::cast<size_t>(f["offset"]);
    if (kind == "bool")
      slot.kind = ConfigSlot::Kind::kBool;
    else if (kind == "int")
      slot.kind = ConfigSlot::Kind::kInt;
    else if (kind == "float")
      slot.kind = ConfigSlot::Kind::kFloat;
    else if (kind == "floats")
      slot.kind = ConfigSlot::Kind::kFloats, slot.length = nb::cast<size_t>(f["length"]);
    else
      throw nb::value_error(("unknown config kind '" + kind + "'").c_str());
    const size_t width = slot.kind == ConfigSlot::Kind::kBool ? 1 : 8 * slot.length;
    if (slot.offset + width > task->config_bytes) throw nb::value_error("config field outside the config record");
    task->config_slots.push_back(slot);
  }
  for (auto item : nb::cast<nb::list>(spec["infos"])) {
    nb::handle f = item;
    InfoSpec info;
    info.name = nb::cast<std::string>(f["name"]);
    info.dtype = parse_dtype(nb::cast<std::string>(f["dtype"]));
    info.shape = nb::cast<std::vector<int64_t>>(f["shape"]);
    InfoSlot slot{nb::cast<size_t>(f["offset"]), info.bytes()};
    if (slot.state_offset + slot.bytes > task->state_bytes) throw nb::value_error("info field outside the state record");
    task->spaces.infos.push_back(info);
    task->info_slots.push_back(slot);
  }
  if (task->spaces.infos.size() > 32) throw nb::value_error("at most 32 info fields");

  std::shared_ptr<const CompiledTask> shared = task;
  def.spaces = [shared](const Config& config) {
    shared->config_record(config);  // validates list lengths before any env is built
    return shared->spaces;
  };
  def.make = [shared](const Config& config, int env_id) -> std::unique_ptr<Env> {
    // One record per env keeps every env's reads on its own cache lines (they are a few bytes).
    return std::make_unique<CompiledEnv>(shared, shared->config_record(config), env_id);
  };

  auto& registry = task_registry();
  for (auto& existing : registry) {
    if (existing.id != def.id) continue;
    if (!compiled_ids().count(def.id))
      throw nb::value_error(("task id '" + def.id + "' is already taken by a built-in task").c_str());
    existing = std::move(def);  // a newer definition of the same Python env; old pools keep theirs
    return;
  }
  compiled_ids().insert(def.id);
  registry.push_back(std::move(def));
}

nb::list compiled_failures(bool clear) {
  nb::list out;
  for (const auto& r : recent_failures(clear)) {
    nb::dict d;
    d["task_id"] = r.task_id;
    d["env_id"] = r.env_id;
    d["function"] = r.function;
    d["message"] = r.message;
    d["state"] = nb::bytes(reinterpret_cast<const char*>(r.state.data()), r.state.size());
    d["action"] = nb::bytes(reinterpret_cast<const char*>(r.action.data()), r.action.size());
    d["rand"] = nb::cast(r.rand);
    d["config"] = nb::bytes(reinterpret_cast<const char*>(r.config.data()), r.config.size());
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_python_envs(nb::module_& m) {
  m.def("register_compiled_task", &register_compiled_task, nb::arg("spec"),
        "Register (or replace) a task whose reset/step (each followed by observe) are compiled C callables "
        "(see envhive.authoring).");
  m.def("compiled_failures", &compiled_failures, nb::arg("clear") = false,
        "The inputs of the most recent failed calls of compiled Python envs (oldest first).");
}

}  // namespace envhive::python
