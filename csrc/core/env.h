// The interface every task implements. An Env knows nothing about threads, batches or Python:
// the pool seeds it, calls reset/step on one thread at a time (any pool thread, the caller's
// included), and asks it to write its observation and info fields into the row it was handed.
// Any exception a method throws reaches Python as envhive.EnvError with the env's id.
// How a task class is declared and registered: task.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "render.h"
#include "rng.h"
#include "spec.h"

namespace envhive {

struct StepResult {
  double reward = 0.0;
  bool terminated = false;
  // The task's own clock ended the episode: dm_control's time_limit (in seconds of physics time),
  // a BabyAI level's budget for its instruction. Reported as a truncation, exactly like the pool's
  // max_episode_steps, which stays independent (fixed step limits are the pool's: never count
  // steps for one).
  bool truncated = false;
};

class Env {
 public:
  virtual ~Env() = default;

  // Start a new episode, drawing any randomness from rng().
  virtual void reset() = 0;
  // Advance one agent step. `action` points at the action row: one int64 for a Discrete
  // action space, else `count()` values of the Box dtype. Truncation (time limits) is the
  // pool's job, not the env's, except for a clock of the task's own (StepResult::truncated).
  virtual StepResult step(const void* action) = 0;
  // Write the current observation (Spaces::observation.bytes() bytes) -- a task whose observation
  // is one Box, Discrete or Text.
  virtual void write_obs(void* /*dst*/) const {
    throw std::logic_error("this task declares a structured observation: it writes it with write_obs_leaves");
  }
  // A task whose observation is a Dict or Tuple writes each leaf: dst[i] points at leaf i's row
  // (space_leaves order: depth first, Dict items in their declared order; a Text leaf is its
  // max_length bytes, zero padded). register_task checks that a task overrides one of the two.
  virtual void write_obs_leaves(void* const* dst) const { write_obs(dst[0]); }
  // Write each declared info field; dst[i] points at Spaces::infos[i] for this row.
  virtual void write_info(void* const* /*dst*/) const {}

  // True when the last reset() continued the same game instead of starting a new one (Atari's
  // episodic life): the pool then keeps counting elapsed steps, so the time limit and
  // info["elapsed_step"] span the whole game, as in EnvPool.
  virtual bool reset_continued_game() const { return false; }

  // A per-env reset option (e.g. domain randomisation), applied just before the next reset().
  // Tasks declare the names they accept in TaskMeta::reset_options; throw on bad values.
  virtual void set_reset_option(const std::string& name, const std::vector<double>& /*values*/) {
    throw std::invalid_argument("reset option '" + name + "' is not supported by this task");
  }

  // Optional: the part of the next step that does not depend on the action, done ahead of it by
  // a pool thread that would otherwise wait (sync pools). The next step() must produce exactly
  // what it would have without it; reset() discards it. Never called concurrently with any other
  // call on this env. can_prepare() is asked once per pool: false (the default) keeps the pool
  // from ever calling prepare().
  virtual bool can_prepare() const { return false; }
  virtual void prepare() {}

  // Draw the current state into `rgb`: Spaces::render.height x width x 3 uint8, rows top first
  // (what Gymnasium's render() returns for render_mode="rgb_array"). Called by a pool thread, one
  // at a time per env and never while the env is in flight; `slot` is that thread's render state
  // (RenderSlot::state). It must not change anything a later step, observation or info reads.
  // Throw for a frame that cannot be drawn (no GL, a bad camera): render() raises RenderError.
  virtual void render(uint8_t* /*rgb*/, RenderSlot& /*slot*/) {
    throw std::logic_error("this task has no renderer (its Spaces declare no frame size)");
  }

  // Called once, right after construction, when the pool renders (render_mode="rgb_array"), as
  // Gymnasium's render_mode is known to an env from its constructor on. A few of Gymnasium's envs
  // keep decorations only while rendering (LunarLander's engine particles are Box2D bodies made
  // only then); the MDP must not depend on it.
  virtual void enable_rendering() {}

  // Seed the env's generator exactly as Gymnasium's env.reset(seed=seed) would. A task whose
  // reference draws from another generator (dm_control's RandomState) overrides both.
  virtual void seed(uint64_t s) { rng_.seed(s); }
  virtual void seed_from_os() { rng_.seed_from_os(); }
  Pcg64& rng() { return rng_; }

 private:
  Pcg64 rng_;
};

}  // namespace envhive
