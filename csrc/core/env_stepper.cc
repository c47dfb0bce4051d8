#include "env_stepper.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

namespace envhive {

EnvStepper::EnvStepper(const TaskDef& task, const Config& config, const Spaces& spaces, const BatchLayout& layout,
                       const PoolOptions& options, const std::vector<uint64_t>& seeds)
    : spaces_(spaces),
      layout_(layout),
      autoreset_(options.autoreset_mode),
      max_episode_steps_(options.max_episode_steps) {
  const auto n = static_cast<size_t>(options.num_envs);
  const auto& act = spaces.action;
  action_row_bytes_ = act.kind == SpaceSpec::Kind::kDiscrete ? sizeof(int64_t) : act.bytes();
  actions_.assign(n * std::max<size_t>(action_row_bytes_, 1), std::byte{0});
  state_ = std::vector<EnvState>(n);
  envs_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    envs_.push_back(task.make(config, static_cast<int>(i)));
    if (!envs_.back()) throw std::runtime_error(task.id() + ": make() returned no env");
    if (seeds.empty())
      envs_.back()->seed_from_os();
    else
      envs_.back()->seed(seeds[i]);
  }
}

void EnvStepper::fail(EnvState& st, std::string message) {
  st.failed = true;
  st.error = std::move(message);
  st.needs_reset = st.restart = true;
}

template <class F>
bool EnvStepper::guarded(EnvState& st, F&& f) {
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

void EnvStepper::queue(int32_t id, Command cmd, const std::byte* action) {
  state(id).cmd = cmd;
  if (cmd == Command::kStep && action_row_bytes_ > 0)
    std::memcpy(actions_.data() + static_cast<size_t>(id) * action_row_bytes_, action, action_row_bytes_);
}

Outcome EnvStepper::advance(int32_t id) {
  const size_t i = static_cast<size_t>(id);
  Env& env = *envs_[i];
  EnvState& st = state_[i];
  Outcome out;
  Command cmd = st.cmd;
  // NEXT_STEP: the step after an episode ends resets instead, ignoring its action. An env that
  // threw restarts the same way in SAME_STEP too (DISABLED leaves it to the caller's reset_mask).
  if (cmd == Command::kStep && st.needs_reset &&
      (autoreset_ == AutoresetMode::kNextStep || (st.restart && autoreset_ == AutoresetMode::kSameStep)))
    cmd = Command::kReset;
  guarded(st, [&] {
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
        out.truncated = max_episode_steps_ > 0 && st.elapsed >= max_episode_steps_;
        out.ended = out.terminated || out.truncated;
        st.needs_reset = out.ended;
        break;
      }
    }
  });
  if (st.failed) out = Outcome{};
  return out;
}

void EnvStepper::write_state(Env& env, const EnvState& st, std::byte* block, size_t row, const RowColumn& obs,
                             const Column<int32_t>& elapsed, const std::vector<RowColumn>& infos) const {
  env.write_obs(obs.row(block, row));
  elapsed.in(block)[row] = static_cast<int32_t>(st.elapsed);
  if (infos.empty()) return;
  void* dst[kMaxInfoFields];  // validate_spaces bounds the count
  for (size_t f = 0; f < infos.size(); ++f) dst[f] = infos[f].row(block, row);
  env.write_info(dst);
}

void EnvStepper::write_row(int32_t id, const Outcome& out, std::byte* block, size_t row) {
  Env& env = *envs_[static_cast<size_t>(id)];
  EnvState& st = state(id);
  const BatchLayout& L = layout_;
  const bool same_step = autoreset_ == AutoresetMode::kSameStep;
  if (same_step) L.final_mask.in(block)[row] = false;
  if (!st.failed && same_step && out.ended) {
    // SAME_STEP: keep the terminal observation and infos, then start the next episode now.
    L.final_mask.in(block)[row] = true;
    guarded(st, [&] { write_state(env, st, block, row, L.final_obs, L.final_elapsed_step, L.final_infos); });
    guarded(st, [&] {
      env.reset();
      if (!env.reset_continued_game()) st.elapsed = 0;
      st.needs_reset = false;
    });
  }
  if (!st.failed) guarded(st, [&] { write_state(env, st, block, row, L.obs, L.elapsed_step, L.infos); });
  if (st.failed) {  // the batch is lost (recv raises EnvError); its row holds zeros, not stale data
    std::memset(L.obs.row(block, row), 0, L.obs.row_bytes);
    L.elapsed_step.in(block)[row] = static_cast<int32_t>(st.elapsed);
    for (const auto& info : L.infos) std::memset(info.row(block, row), 0, info.row_bytes);
    if (same_step) L.final_mask.in(block)[row] = false;
  }
  L.reward.in(block)[row] = st.failed ? 0.0 : out.reward;
  L.terminated.in(block)[row] = !st.failed && out.terminated;
  L.truncated.in(block)[row] = !st.failed && out.truncated;
  L.env_id.in(block)[row] = id;
}

bool EnvStepper::prepare(int32_t id) {
  EnvState& st = state(id);
  if (st.busy.exchange(true, std::memory_order_acquire)) return false;  // being stepped again already
  try {
    envs_[static_cast<size_t>(id)]->prepare();
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    st.busy.store(false, std::memory_order_release);
    throw;
#endif
  } catch (...) {  // an error surfaces from the env's next step, which redoes the work
  }
  st.busy.store(false, std::memory_order_release);
  return true;
}

}  // namespace envhive
