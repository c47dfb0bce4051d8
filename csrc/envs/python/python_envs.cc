// register_compiled_task: adds (or replaces) the task of a compiled Python env at run time.
// Its declarations arrive as the bound spec types (SpaceSpec, ConfigField, InfoSpec) from
// envhive.authoring, which also keeps the compiled code alive for the
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

template <class T>
T fn_ptr(uintptr_t address) {
  if (address == 0) throw nb::value_error("null function address");
  return reinterpret_cast<T>(address);
}

// Ids registered here (so a Python env may replace its own earlier definition, never a built-in).
std::set<std::string>& compiled_ids() {
  static std::set<std::string> ids;
  return ids;
}

ConfigSlot config_slot(const ConfigField& f, size_t offset) {
  ConfigSlot slot;
  slot.name = f.name;
  slot.offset = offset;
  if (std::holds_alternative<bool>(f.default_value))
    slot.kind = ConfigSlot::Kind::kBool;
  else if (std::holds_alternative<int64_t>(f.default_value))
    slot.kind = ConfigSlot::Kind::kInt;
  else if (std::holds_alternative<double>(f.default_value))
    slot.kind = ConfigSlot::Kind::kFloat;
  else if (const auto* v = std::get_if<std::vector<double>>(&f.default_value))
    slot.kind = ConfigSlot::Kind::kFloats, slot.length = v->size();
  else
    throw nb::type_error(("config field '" + f.name + "' of a Python env must be a bool, int, float or list").c_str());
  return slot;
}

void register_compiled_task(std::string id, std::string family, std::string doc, std::vector<std::string> labels,
                            uintptr_t reset_fn, uintptr_t step_fn, size_t state_bytes, size_t config_bytes,
                            int reset_randoms, int step_randoms, bool check_finite, int64_t max_episode_steps,
                            SpaceSpec observation, SpaceSpec action, std::vector<ConfigField> config,
                            std::vector<size_t> config_offsets, std::vector<InfoSpec> infos,
                            std::vector<size_t> info_offsets) {
  auto task = std::make_shared<CompiledTask>();
  task->id = id;
  if (labels.size() != 3) throw nb::value_error("labels must name reset, step and observe");
  for (size_t i = 0; i < 3; ++i) task->labels[i] = labels[i];
  task->reset_fn = fn_ptr<ResetFn>(reset_fn);
  task->step_fn = fn_ptr<StepFn>(step_fn);
  task->state_bytes = state_bytes;
  task->config_bytes = config_bytes;
  if (reset_randoms < 0 || step_randoms < 0) throw nb::value_error("randoms must be >= 0");
  task->reset_randoms = reset_randoms;
  task->step_randoms = step_randoms;
  task->check_finite = check_finite;
  task->spaces.observation = std::move(observation);
  task->spaces.action = std::move(action);
  if (config_offsets.size() != config.size()) throw nb::value_error("one config offset per config field");
  for (size_t i = 0; i < config.size(); ++i) {
    const ConfigSlot slot = config_slot(config[i], config_offsets[i]);
    const size_t width = slot.kind == ConfigSlot::Kind::kBool ? 1 : 8 * slot.length;
    if (slot.offset + width > config_bytes) throw nb::value_error("config field outside the config record");
    task->config_slots.push_back(slot);
  }
  task->config = std::move(config);
  if (info_offsets.size() != infos.size()) throw nb::value_error("one state offset per info field");
  for (size_t i = 0; i < infos.size(); ++i) {
    const InfoSlot slot{info_offsets[i], infos[i].bytes()};
    if (slot.state_offset + slot.bytes > state_bytes) throw nb::value_error("info field outside the state record");
    task->info_slots.push_back(slot);
  }
  task->spaces.infos = std::move(infos);
  validate_spaces(task->spaces, id);  // the info-field limit, names, bounds: before anything is registered

  TaskDef def = make_task_def<CompiledEnv>(
      {.id = id, .family = std::move(family), .doc = std::move(doc), .max_episode_steps = max_episode_steps},
      CompiledTaskPtr(task));
  TaskRegistry& registry = task_registry();
  if (registry.find(id) && !compiled_ids().count(id))
    throw nb::value_error(("task id '" + id + "' is already taken by a built-in task").c_str());
  registry.replace(std::move(def));  // a newer definition of the same Python env; old pools keep theirs
  compiled_ids().insert(id);
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
  m.def("register_compiled_task", &register_compiled_task, nb::kw_only(), nb::arg("id"), nb::arg("family"),
        nb::arg("doc"), nb::arg("labels"), nb::arg("reset_fn"), nb::arg("step_fn"), nb::arg("state_bytes"),
        nb::arg("config_bytes"), nb::arg("reset_randoms"), nb::arg("step_randoms"), nb::arg("check_finite"),
        nb::arg("max_episode_steps"), nb::arg("observation"), nb::arg("action"), nb::arg("config"),
        nb::arg("config_offsets"), nb::arg("infos"), nb::arg("info_offsets"),
        "Register (or replace) a task whose reset/step (each followed by observe) are compiled C callables "
        "(see envhive.authoring): `config` fields live at `config_offsets` in the config record, `infos` are "
        "copied from `info_offsets` of the state record.");
  m.def("compiled_failures", &compiled_failures, nb::arg("clear") = false,
        "The inputs of the most recent failed calls of compiled Python envs (oldest first).");
}

}  // namespace envhive::python

namespace envhive {
// The family's bindings (envhive_add_family's BINDINGS).
void bind_python_extras(nanobind::module_& m) { python::bind_python_envs(m); }
namespace python {
void register_tasks(TaskRegistry& /*registry*/) {}
}  // namespace python
}  // namespace envhive
