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
  structured_obs_ = !spaces.observation.is_leaf();
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
