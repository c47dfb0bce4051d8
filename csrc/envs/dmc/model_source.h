// Where a suite task's model comes from: the XML dm_control itself builds for the task (its asset
// files, and for cartpole's poles, swimmer's links, stacker's boxes, manipulator's objects, dog's
// and quadruped's floors, lqr's chain: what the suite's Python edits make of them), compiled once
// per process and shared read-only by every env of that task.
//
// The XML is produced in Python (envhive.families.dmc, which calls dm_control) and reaches the C++
// through the family's resolver (register_dmc). It runs when a task's spaces are first resolved --
// never while an env steps.
#pragma once

#include <mujoco/mujoco.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace envhive::dmc {

using ModelPtr = std::shared_ptr<const mjModel>;

// A task's model as dm_control hands it to Physics.from_xml_string: the XML and its assets.
struct ModelFiles {
  std::string xml;
  std::vector<std::pair<std::string, std::string>> assets;  // {file name, contents}
};
// Constructor kwargs that change the XML a task builds (cartpole's num_poles), by name.
using ModelKwargs = std::vector<std::pair<std::string, int64_t>>;
using ModelSource =
    std::function<ModelFiles(const std::string& domain, const std::string& task, const ModelKwargs& kwargs)>;

// Installed once by the module (the GIL is taken inside the hook when it calls Python).
void set_model_source(ModelSource source);

// The compiled model of a suite task and its twin with actuation disabled (what
// Model.disable('actuation') makes of it for Physics.after_reset's forward); made on first use and
// cached until the last env using it is gone: each env holds a lease (lease_task_model), and the
// cache lets go of the model when the last lease of its key ends, so it is freed with its last pool
// (a dog model is ~430 MB). A model resolved for spaces alone stays cached until a pool of it has
// come and gone.
struct TaskModel {
  ModelPtr model, no_actuation;
  std::string key;  // "domain/task" and its model kwargs
};
TaskModel task_model(const std::string& domain, const std::string& task, const ModelKwargs& kwargs = {});
// An env's hold on its task's cache entry (see above); ends when the returned token is destroyed.
std::shared_ptr<const void> lease_task_model(const TaskModel& model);
// The tasks whose models are cached now (test hook: envhive._mujoco._dmc_cached_models).
std::vector<std::string> cached_task_models();

}  // namespace envhive::dmc
