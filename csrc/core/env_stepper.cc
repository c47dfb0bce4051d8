#include "env_stepper.h"

#include <atomic>
#include <exception>
#include <thread>

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
  structured_obs_ = !spaces.observation.is_leaf();
  actions_.assign(n * std::max<size_t>(action_row_bytes_, 1), std::byte{0});
  state_ = std::vector<EnvState>(n);
  envs_.resize(n);
  const auto build = [&](size_t i) {
    auto env = task.make(config, static_cast<int>(i));
    if (!env) throw std::runtime_error(task.id() + ": make() returned no env");
    if (options.render) env->enable_rendering();
    if (seeds.empty())
      env->seed_from_os();
    else
      env->seed(seeds[i]);
    envs_[i] = std::move(env);
  };
  // Construction scales with cores as stepping does: the pool's threads-to-be build the envs
  // (an Atari env loads and boots its ROM, ~85 ms), each env on one thread, the first error kept.
  const size_t threads = std::min(n, static_cast<size_t>(std::max(1, options.num_threads)));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) build(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  const auto run = [&](size_t t) {
    try {
      for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) build(i);
    } catch (...) {
      errors[t] = std::current_exception();
      next.store(n);  // the others stop at their next env
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(run, t);
  run(0);
  for (auto& h : helpers) h.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
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

bool EnvStepper::render(int32_t id, uint8_t* rgb, size_t bytes, RenderSlot& slot, std::string& error) {
  try {
    envs_[static_cast<size_t>(id)]->render(rgb, slot);
    return true;
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    throw;
#endif
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "an exception that is not a std::exception";
  }
  std::memset(rgb, 0, bytes);
  return false;
}

}  // namespace envhive
