#include "compiled_env.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace envhive::python {

namespace {

constexpr size_t kMaxFailures = 32;
const char* const kFunctionNames[3] = {"reset", "step", "observe"};

std::mutex& failures_mutex() {
  static std::mutex mu;
  return mu;
}
std::deque<FailureRecord>& failures() {
  static std::deque<FailureRecord> records;
  return records;
}

size_t words(size_t bytes) { return bytes / sizeof(uint64_t) + 1; }

std::string format_value(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Index of the first element of a Box observation that is NaN, or infinite outside its finite
// bounds; -1 when every element is acceptable.
template <class T>
long first_bad(const T* v, const SpaceSpec& space) {
  const size_t n = space.count();
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(v[i]);
    if (std::isfinite(x)) continue;
    if (std::isnan(x) || x > space.high_at(i) || x < space.low_at(i)) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace

std::vector<FailureRecord> recent_failures(bool clear) {
  std::lock_guard<std::mutex> lock(failures_mutex());
  std::vector<FailureRecord> out(failures().begin(), failures().end());
  if (clear) failures().clear();
  return out;
}

std::shared_ptr<const std::vector<uint64_t>> CompiledTask::config_record(const Config& config) const {
  auto record = std::make_shared<std::vector<uint64_t>>(words(config_bytes), 0);
  auto* base = reinterpret_cast<std::byte*>(record->data());
  for (const auto& slot : config_slots) {
    std::byte* at = base + slot.offset;
    switch (slot.kind) {
      case ConfigSlot::Kind::kBool: {
        const uint8_t b = config.flag(slot.name) ? 1 : 0;
        std::memcpy(at, &b, 1);
        break;
      }
      case ConfigSlot::Kind::kInt: {
        const int64_t i = config.integer(slot.name);
        std::memcpy(at, &i, sizeof(i));
        break;
      }
      case ConfigSlot::Kind::kFloat: {
        const double d = config.real(slot.name);
        std::memcpy(at, &d, sizeof(d));
        break;
      }
      case ConfigSlot::Kind::kFloats: {
        const auto& values = config.reals(slot.name);
        if (values.size() != slot.length)
          throw std::invalid_argument(id + ": kwarg '" + slot.name + "' must have " + std::to_string(slot.length) +
                                      " values, got " + std::to_string(values.size()));
        std::memcpy(at, values.data(), values.size() * sizeof(double));
        break;
      }
    }
  }
  return record;
}

CompiledEnv::CompiledEnv(std::shared_ptr<const CompiledTask> task, std::shared_ptr<const std::vector<uint64_t>> config,
                         int env_id)
    : task_(std::move(task)), config_(std::move(config)), env_id_(env_id) {
  const auto& sp = task_->spaces;
  obs_bytes_ = sp.observation.bytes();
  action_bytes_ = sp.action.kind == SpaceSpec::Kind::kDiscrete ? sizeof(int64_t) : sp.action.bytes();
  state_.assign(words(task_->state_bytes), 0);
  backup_.assign(state_.size(), 0);
  obs_.assign(words(obs_bytes_), 0);
  rand_.assign(static_cast<size_t>(std::max(task_->reset_randoms, task_->step_randoms)) + 1, 0.0);
}

void CompiledEnv::draw(int n) {
  for (int i = 0; i < n; ++i) rand_[static_cast<size_t>(i)] = rng().next_double();
}

void CompiledEnv::reset() {
  draw(task_->reset_randoms);
  std::memcpy(backup_.data(), state_.data(), task_->state_bytes);
  check(task_->reset_fn(state_.data(), rand_.data(), config_->data(), obs_.data()), 0, nullptr);
}

StepResult CompiledEnv::step(const void* action) {
  draw(task_->step_randoms);
  std::memcpy(backup_.data(), state_.data(), task_->state_bytes);
  double out[2] = {0.0, 0.0};
  check(task_->step_fn(state_.data(), action, rand_.data(), config_->data(), out, obs_.data()), 1, action);
  if (task_->check_finite && std::isnan(out[0])) fail(1, "returned a NaN reward", action);
  return {out[0], out[1] != 0.0};
}

void CompiledEnv::check(int32_t status, int which, const void* action) {
  // The observation is written here, where a failure can still be reported (the pool writes
  // observations outside its error handling), into a buffer write_obs() only copies.
  if (status == 1) fail(which, "raised an exception in compiled code", action);
  if (status != 0) {
    std::memcpy(backup_.data(), state_.data(), task_->state_bytes);  // observe's input
    fail(2, "raised an exception in compiled code", nullptr);
  }
  const auto& space = task_->spaces.observation;
  if (space.kind == SpaceSpec::Kind::kDiscrete) {
    int64_t v;
    std::memcpy(&v, obs_.data(), sizeof(v));
    if (v < space.start || v >= space.start + space.n) {
      std::memcpy(backup_.data(), state_.data(), task_->state_bytes);
      std::ostringstream msg;
      msg << "returned observation " << v << ", outside Discrete(" << space.n
          << (space.start ? ", start=" + std::to_string(space.start) : std::string()) << ")";
      fail(2, msg.str(), nullptr);
    }
    return;
  }
  if (!task_->check_finite) return;
  long bad = -1;
  if (space.dtype == DType::kFloat32)
    bad = first_bad(reinterpret_cast<const float*>(obs_.data()), space);
  else if (space.dtype == DType::kFloat64)
    bad = first_bad(reinterpret_cast<const double*>(obs_.data()), space);
  if (bad >= 0) {
    std::memcpy(backup_.data(), state_.data(), task_->state_bytes);
    const size_t i = static_cast<size_t>(bad);
    const double x = space.dtype == DType::kFloat32 ? static_cast<double>(reinterpret_cast<const float*>(obs_.data())[i])
                                                     : reinterpret_cast<const double*>(obs_.data())[i];
    std::ostringstream msg;
    msg << "wrote a non-finite observation: obs[" << i << "] (flat index) is " << format_value(x)
        << ", the observation space bounds it to [" << format_value(space.low_at(i)) << ", "
        << format_value(space.high_at(i)) << "]";
    fail(2, msg.str(), nullptr);
  }
}

void CompiledEnv::write_obs(void* dst) const { std::memcpy(dst, obs_.data(), obs_bytes_); }

void CompiledEnv::write_info(void* const* dst) const {
  const auto* base = reinterpret_cast<const std::byte*>(state_.data());
  for (size_t f = 0; f < task_->info_slots.size(); ++f) {
    const auto& slot = task_->info_slots[f];
    std::memcpy(dst[f], base + slot.state_offset, slot.bytes);
  }
}

void CompiledEnv::fail(int which, const std::string& what, const void* action) {
  FailureRecord r;
  r.task_id = task_->id;
  r.env_id = env_id_;
  r.function = kFunctionNames[which];
  r.message = task_->labels[which] + " " + what;
  const auto* state = reinterpret_cast<const std::byte*>(backup_.data());
  r.state.assign(state, state + task_->state_bytes);
  if (action) {
    const auto* a = static_cast<const std::byte*>(action);
    r.action.assign(a, a + action_bytes_);
  }
  const int n = which == 0 ? task_->reset_randoms : which == 1 ? task_->step_randoms : 0;
  r.rand.assign(rand_.begin(), rand_.begin() + n);
  const auto* cfg = reinterpret_cast<const std::byte*>(config_->data());
  r.config.assign(cfg, cfg + task_->config_bytes);
  std::string message = r.message;
  if (what.rfind("raised", 0) == 0)
    message += " (envhive.authoring.replay_failure() re-runs the call in Python to show the exception)";
  {
    std::lock_guard<std::mutex> lock(failures_mutex());
    failures().push_back(std::move(r));
    while (failures().size() > kMaxFailures) failures().pop_front();
  }
  throw std::runtime_error(message);
}

}  // namespace envhive::python
