// Environments written in Python (envhive.authoring.PyEnv) and compiled by Numba to C callables.
// A CompiledEnv is an ordinary Env: the pool's workers call the compiled functions through plain
// function pointers, with no GIL and no Python object per step. The env owns its state bytes
// (the PyEnv's `state` record), and before every reset/step it fills a small buffer of uniform
// [0, 1) doubles from its own rng(), so draws are reproducible per seed and thread count exactly
// as for built-in tasks (and equal to numpy's Generator.random()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive::python {

// The C ABI of the compiled functions: reset (or step) then observe, in one call. They return 0,
// 1 when the user's reset/step raised, 2 when observe raised: the glue catches exceptions in
// nopython code, so a failure never needs the GIL.
using ResetFn = int32_t (*)(void* state, const double* rand, const void* config, void* obs);
// out[0] = reward, out[1] = terminated (0 or 1).
using StepFn = int32_t (*)(void* state, const void* action, const double* rand, const void* config, double* out,
                           void* obs);

// A task kwarg as laid out in the config record the compiled functions read (its kind is the
// type of the field's default: bool -> uint8, int -> int64, float -> float64, list -> float64[]).
struct ConfigSlot {
  enum class Kind : uint8_t { kBool, kInt, kFloat, kFloats };
  std::string name;
  Kind kind = Kind::kFloat;
  size_t offset = 0;
  size_t length = 1;  // kFloats only
};

// An info field: a slice of the state record copied out after every reset/step.
struct InfoSlot {
  size_t state_offset = 0;
  size_t bytes = 0;
};

// Everything shared by the envs of one registered Python task; immutable once registered.
struct CompiledTask {
  std::string id;
  std::string labels[3];  // "Class.reset (file.py:12)", step, observe: named in error messages
  ResetFn reset_fn = nullptr;
  StepFn step_fn = nullptr;
  size_t state_bytes = 8;
  size_t config_bytes = 8;
  int reset_randoms = 0;
  int step_randoms = 0;
  bool check_finite = true;  // NaN anywhere, or +-inf outside finite bounds, in a Box observation is an error
  Spaces spaces;
  std::vector<ConfigField> config;  // the task's kwargs (max_episode_steps is the pool's)
  std::vector<ConfigSlot> config_slots;
  std::vector<InfoSlot> info_slots;

  // The config record for a resolved Config (throws std::invalid_argument on a bad value).
  std::shared_ptr<const std::vector<uint64_t>> config_record(const Config& config) const;
};

// The inputs of a failed call, kept so Python can replay it (envhive.authoring.replay_failure).
struct FailureRecord {
  std::string task_id;
  int env_id = 0;
  std::string function;  // "reset", "step" or "observe"
  std::string message;
  std::vector<std::byte> state;   // the state record before the call
  std::vector<std::byte> action;  // step only
  std::vector<double> rand;
  std::vector<std::byte> config;
};

// The most recent failures (oldest first), optionally clearing them. Thread-safe.
std::vector<FailureRecord> recent_failures(bool clear);

using CompiledTaskPtr = std::shared_ptr<const CompiledTask>;

class CompiledEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const CompiledTaskPtr& task) { return task->config; }
  static Spaces spaces(const Config& c, const CompiledTaskPtr& task) {
    task->config_record(c);  // validates list lengths before any env is built
    return task->spaces;
  }
  // One record per env keeps every env's reads on its own cache lines (they are a few bytes).
  CompiledEnv(const Config& c, int env_id, const CompiledTaskPtr& task)
      : CompiledEnv(task, task->config_record(c), env_id) {}
  CompiledEnv(std::shared_ptr<const CompiledTask> task, std::shared_ptr<const std::vector<uint64_t>> config,
              int env_id);

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;

 private:
  void draw(int n);
  // After a call: raise on a non-zero status, check the observation.
  void check(int32_t status, int which, const void* action);
  [[noreturn]] void fail(int which, const std::string& what, const void* action);

  std::shared_ptr<const CompiledTask> task_;
  std::shared_ptr<const std::vector<uint64_t>> config_;
  int env_id_;
  size_t obs_bytes_;
  size_t action_bytes_;
  std::vector<uint64_t> state_, backup_, obs_;  // uint64_t words keep every record field aligned
  std::vector<double> rand_;
};

}  // namespace envhive::python
