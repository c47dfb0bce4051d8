// The envs of a pool and what the pool knows about each: the command queued for it, its episode
// bookkeeping (time limit, autoreset), its error. advance() runs an env's command, write_row()
// writes its outputs into a batch row. Every exception an env throws, of any type, goes through
// one failure path (fail) and reaches Python as envhive.EnvError with the env's id.
#pragma once

#include <atomic>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

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
  // render_mode="rgb_array": Pool::render may be called. Fixed for the pool's life (as Gymnasium's
  // render_mode), it turns prepared steps off (Env::prepare moves the state a frame draws). No
  // render state exists until the first render call.
  bool render = false;
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

// What one advance produced (the rest of the row comes from the env itself). No default member
// initializers: a chunk's array of them is not zeroed (advance sets every field).
struct Outcome {
  double reward;
  bool terminated, truncated, ended;
};

// Inlines a lambda into its caller (the failure path's wrapper would otherwise cost a call per env).
#if defined(__GNUC__)
#define ENVHIVE_INLINE_LAMBDA __attribute__((always_inline))
#else
#define ENVHIVE_INLINE_LAMBDA
#endif

class EnvStepper {
 public:
  // seeds: one per env, or empty for fresh OS entropy.
  EnvStepper(const TaskDef& task, const Config& config, const Spaces& spaces, const BatchLayout& layout,
             const PoolOptions& options, const std::vector<uint64_t>& seeds);

  size_t size() const { return state_.size(); }
  // Pool::close, once no thread steps: destroys the envs (what they hold: models, emulators, GL-free
  // state), so a closed pool holds no env even while its Python object lives on.
  void release_envs() {
    for (auto& env : envs_) env.reset();
  }
  EnvState& state(int32_t id) { return state_[static_cast<size_t>(id)]; }
  const EnvState& state(int32_t id) const { return state_[static_cast<size_t>(id)]; }
  size_t action_row_bytes() const { return action_row_bytes_; }
  bool can_prepare() const { return !envs_.empty() && envs_[0] && envs_[0]->can_prepare(); }

  // Caller: the command for the env's next advance (and its action row, for kStep).
  void queue(int32_t id, Command cmd, const std::byte* action);
  // Stepper: run the queued command; autoreset and the time limit are applied here.
  Outcome advance(int32_t id);
  // Stepper: the env's row of a batch (SAME_STEP: the terminal state into final_*, then a reset).
  // Its observation goes to row `row` of `obs_rows` when given (Pool::set_obs_target: a
  // one-leaf observation), else to the block's obs columns.
  void write_row(int32_t id, const Outcome& out, std::byte* block, size_t row, std::byte* obs_rows = nullptr);
  // Any pool thread holding nothing else: the action-independent part of the env's next step
  // (Env::prepare); false when another thread holds the env. Errors surface from the step.
  bool prepare(int32_t id);
  // A pool thread, for an env not in flight: its frame into `rgb` (`bytes` long). False, with the
  // frame zeroed and `error` set, when the env's renderer threw; the env itself is unaffected.
  bool render(int32_t id, uint8_t* rgb, size_t bytes, RenderSlot& slot, std::string& error);

 private:
  // The one failure path: runs f, and turns any exception into the env's error.
  template <class F>
  bool guarded(EnvState& st, F&& f);
  static void fail(EnvState& st, std::string message);
  // The env's observation into row `row` of the `obs` columns (the first leaf into `obs_row`
  // when given), its elapsed step and infos into row `row` of block.
  void write_state(Env& env, const EnvState& st, std::byte* block, size_t row, const std::vector<RowColumn>& obs,
                   std::byte* obs_row, const Column<int32_t>& elapsed, const std::vector<RowColumn>& infos) const;
  // Zeros in row `row` of the `obs` columns (the first leaf at `obs_row` when given).
  static void zero_obs(std::byte* block, size_t row, const std::vector<RowColumn>& obs, std::byte* obs_row);

  const Spaces& spaces_;
  const BatchLayout& layout_;
  AutoresetMode autoreset_;
  int64_t max_episode_steps_;
  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<EnvState> state_;
  std::vector<std::byte> actions_;  // one row per env: caller writes (queue), stepper reads
  size_t action_row_bytes_ = 0;
  bool structured_obs_ = false;  // a Dict / Tuple observation: envs write it with write_obs_leaves
};

// The per-env hot path, inline: the pool calls these once per env per call.

inline void EnvStepper::fail(EnvState& st, std::string message) {
  st.failed = true;
  st.error = std::move(message);
  st.needs_reset = st.restart = true;
}

template <class F>
inline bool EnvStepper::guarded(EnvState& st, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    fail(st, e.what());
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    throw;  // thread cancellation (e.g. at interpreter exit) must unwind, not be reported
#endif
  } catch (...) {
    fail(st, "an exception that is not a std::exception");
  }
  return false;
}

inline void EnvStepper::queue(int32_t id, Command cmd, const std::byte* action) {
  state(id).cmd = cmd;
  if (cmd == Command::kStep && action_row_bytes_ > 0)
    std::memcpy(actions_.data() + static_cast<size_t>(id) * action_row_bytes_, action, action_row_bytes_);
}

inline Outcome EnvStepper::advance(int32_t id) {
  const size_t i = static_cast<size_t>(id);
  Env& env = *envs_[i];
  EnvState& st = state_[i];
  Outcome out{0.0, false, false, false};
  Command cmd = st.cmd;
  // NEXT_STEP: the step after an episode ends resets instead, ignoring its action. An env that
  // threw restarts the same way in SAME_STEP too (DISABLED leaves it to the caller's reset_mask).
  if (cmd == Command::kStep && st.needs_reset &&
      (autoreset_ == AutoresetMode::kNextStep || (st.restart && autoreset_ == AutoresetMode::kSameStep)))
    cmd = Command::kReset;
  guarded(st, [&]() ENVHIVE_INLINE_LAMBDA {
    switch (cmd) {
      case Command::kReset:
        if (st.has_seed) {
          env.seed(st.seed);
          st.has_seed = false;
        }
        if (!st.reset_options.empty()) {
          auto options = std::move(st.reset_options);
          st.reset_options.clear();
          for (const auto& [name, values] : options) env.set_reset_option(name, values);
        }
        env.reset();
        if (!env.reset_continued_game()) st.elapsed = 0;
        st.needs_reset = st.restart = false;
        break;
      case Command::kEmit:
        break;
      case Command::kStep: {
        const StepResult r = env.step(actions_.data() + i * action_row_bytes_);
        ++st.elapsed;
        out.reward = r.reward;
        out.terminated = r.terminated;
        out.truncated = r.truncated || (max_episode_steps_ > 0 && st.elapsed >= max_episode_steps_);
        out.ended = out.terminated || out.truncated;
        st.needs_reset = out.ended;
        break;
      }
    }
  });
  if (st.failed) out = Outcome{0.0, false, false, false};
  return out;
}

inline void EnvStepper::write_state(Env& env, const EnvState& st, std::byte* block, size_t row,
                                    const std::vector<RowColumn>& obs, std::byte* obs_row,
                                    const Column<int32_t>& elapsed, const std::vector<RowColumn>& infos) const {
  if (!structured_obs_) {
    env.write_obs(obs_row ? obs_row : obs[0].row(block, row));
  } else {
    void* leaves[kMaxObsLeaves];  // validate_spaces bounds the count
    for (size_t k = 0; k < obs.size(); ++k) leaves[k] = obs[k].row(block, row);
    env.write_obs_leaves(leaves);
  }
  elapsed.in(block)[row] = static_cast<int32_t>(st.elapsed);
  if (infos.empty()) return;
  void* dst[kMaxInfoFields];  // validate_spaces bounds the count
  for (size_t f = 0; f < infos.size(); ++f) dst[f] = infos[f].row(block, row);
  env.write_info(dst);
}

inline void EnvStepper::zero_obs(std::byte* block, size_t row, const std::vector<RowColumn>& obs,
                                 std::byte* obs_row) {
  for (size_t k = 0; k < obs.size(); ++k)
    std::memset(k == 0 && obs_row ? obs_row : obs[k].row(block, row), 0, obs[k].row_bytes);
}

inline void EnvStepper::write_row(int32_t id, const Outcome& out, std::byte* block, size_t row, std::byte* obs_rows) {
  Env& env = *envs_[static_cast<size_t>(id)];
  EnvState& st = state(id);
  const BatchLayout& L = layout_;
  std::byte* obs_row = obs_rows ? obs_rows + row * L.obs[0].row_bytes : nullptr;
  bool ok = !st.failed;
  if (autoreset_ == AutoresetMode::kSameStep) {
    L.final_mask.in(block)[row] = ok && out.ended;
    if (!(ok && out.ended)) {  // Gymnasium batches final_info with zeros where no episode ended
      L.final_elapsed_step.in(block)[row] = 0;
      for (const auto& info : L.final_infos) std::memset(info.row(block, row), 0, info.row_bytes);
    } else {
      // SAME_STEP: keep the terminal observation and infos, then start the next episode now.
      ok = guarded(st, [&]() ENVHIVE_INLINE_LAMBDA {
             write_state(env, st, block, row, L.final_obs, nullptr, L.final_elapsed_step, L.final_infos);
           }) && guarded(st, [&]() ENVHIVE_INLINE_LAMBDA {
             env.reset();
             if (!env.reset_continued_game()) st.elapsed = 0;
             st.needs_reset = false;
           });
    }
  }
  if (ok)
    ok = guarded(st, [&]() ENVHIVE_INLINE_LAMBDA {
      write_state(env, st, block, row, L.obs, obs_row, L.elapsed_step, L.infos);
    });
  if (!ok) {  // the batch is lost (recv raises EnvError); its row holds zeros, not stale data
    zero_obs(block, row, L.obs, obs_row);
    L.elapsed_step.in(block)[row] = static_cast<int32_t>(st.elapsed);
    for (const auto& info : L.infos) std::memset(info.row(block, row), 0, info.row_bytes);
    if (autoreset_ == AutoresetMode::kSameStep) L.final_mask.in(block)[row] = false;
  }
  L.reward.in(block)[row] = ok ? out.reward : 0.0;
  L.terminated.in(block)[row] = ok && out.terminated;
  L.truncated.in(block)[row] = ok && out.truncated;
  L.env_id.in(block)[row] = id;
}

}  // namespace envhive
