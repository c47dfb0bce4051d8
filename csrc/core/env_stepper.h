// The envs of a pool and what the pool knows about each: the command queued for it, its episode
// bookkeeping (time limit, autoreset), its error. advance() runs an env's command, write_row()
// writes its outputs into a batch row. Every exception an env throws, of any type, goes through
// one failure path (fail) and reaches Python as envhive.EnvError with the env's id.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "batch.h"
#include "env.h"
#include "task.h"

namespace envhive {

enum class AutoresetMode : uint8_t { kNextStep, kSameStep, kDisabled };
enum class Command : uint8_t { kStep, kReset, kEmit };  // kEmit: write the current observation, no step

struct PoolOptions {
  int num_envs = 1;
  int batch_size = 1;
  int num_threads = 1;
  int thread_affinity_offset = -1;  // pin participant i to core offset + i; -1: no pinning
  AutoresetMode autoreset_mode = AutoresetMode::kNextStep;
  int64_t max_episode_steps = 0;  // 0: no time limit
};

// Per-env state. Who writes each field: "caller" -- the thread calling the pool, only while the
// env is not in flight; "stepper" -- the pool thread that claimed the env (one at a time: the
// queue's claim and the ring's counters order successive steppers and the caller).
struct alignas(64) EnvState {
  Command cmd = Command::kStep;  // caller (queue)
  bool has_seed = false;         // caller sets, stepper consumes at the next reset
  uint64_t seed = 0;             // caller
  std::vector<std::pair<std::string, std::vector<double>>> reset_options;  // caller sets, stepper consumes
  bool needs_reset = false;  // stepper: the episode ended (caller reads it between calls)
  bool restart = false;      // stepper: the env threw; its next step starts a new episode
  int64_t elapsed = 0;       // stepper: agent steps in this episode
  bool failed = false;       // stepper sets; caller reads and clears once the env's batch is received
  std::string error;         // as `failed`
  // Async pools: the chunk of its last step took under tuning::kQuickBelowNs (unknown until it
  // stepped once). Stepper writes, the waiting caller's claims read: atomic.
  std::atomic<bool> quick{false};
  // Pools whose envs prepare (sync): held by the thread stepping or preparing the env.
  std::atomic<bool> busy{false};
};

// What one advance produced (the rest of the row comes from the env itself).
struct Outcome {
  double reward = 0.0;
  bool terminated = false, truncated = false, ended = false;
};

class EnvStepper {
 public:
  // seeds: one per env, or empty for fresh OS entropy.
  EnvStepper(const TaskDef& task, const Config& config, const Spaces& spaces, const BatchLayout& layout,
             const PoolOptions& options, const std::vector<uint64_t>& seeds);

  size_t size() const { return envs_.size(); }
  EnvState& state(int32_t id) { return state_[static_cast<size_t>(id)]; }
  const EnvState& state(int32_t id) const { return state_[static_cast<size_t>(id)]; }
  size_t action_row_bytes() const { return action_row_bytes_; }
  bool can_prepare() const { return !envs_.empty() && envs_[0]->can_prepare(); }

  // Caller: the command for the env's next advance (and its action row, for kStep).
  void queue(int32_t id, Command cmd, const std::byte* action);
  // Stepper: run the queued command; autoreset and the time limit are applied here.
  Outcome advance(int32_t id);
  // Stepper: the env's row of a batch (SAME_STEP: the terminal state into final_*, then a reset).
  void write_row(int32_t id, const Outcome& out, std::byte* block, size_t row);
  // Any pool thread holding nothing else: the action-independent part of the env's next step
  // (Env::prepare); false when another thread holds the env. Errors surface from the step.
  bool prepare(int32_t id);

 private:
  // The one failure path: runs f, and turns any exception into the env's error.
  template <class F>
  bool guarded(EnvState& st, F&& f);
  static void fail(EnvState& st, std::string message);
  void write_state(Env& env, const EnvState& st, std::byte* block, size_t row, const RowColumn& obs,
                   const Column<int32_t>& elapsed, const std::vector<RowColumn>& infos) const;

  const Spaces& spaces_;
  const BatchLayout& layout_;
  AutoresetMode autoreset_;
  int64_t max_episode_steps_;
  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<EnvState> state_;
  std::vector<std::byte> actions_;  // one row per env: caller writes (queue), stepper reads
  size_t action_row_bytes_ = 0;
};

}  // namespace envhive
