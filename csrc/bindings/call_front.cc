#include "call_front.h"

#include <cmath>
#include <sstream>

namespace envhive::bindings {

namespace {

// The most env ids an error message lists.
constexpr size_t kIdsNamed = 10;

}  // namespace

CallFront::CallFront(Pool& pool) : pool_(pool) {
  const int n = pool.options().num_envs;
  all_ids_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all_ids_[static_cast<size_t>(i)] = i;
  stamp_.assign(static_cast<size_t>(n), 0);
}

const std::vector<int32_t>& CallFront::awaiting_all() {
  for (int32_t id : all_ids_)
    if (pool_.in_flight(id))
      throw std::invalid_argument("env " + std::to_string(id) +
                                  " is not awaiting an action (it is in flight); pass env_id for the envs recv() "
                                  "returned");
  return all_ids_;
}

void CallFront::check_sync_send(size_t n, bool partial) const {
  const int num_envs = pool_.options().num_envs;
  if (pool_.sync() && !partial && n != static_cast<size_t>(num_envs))
    throw std::invalid_argument("sync mode (batch_size == num_envs) steps all " + std::to_string(num_envs) +
                                " envs together; got env_id for " + std::to_string(n) +
                                ". Use batch_size < num_envs for async stepping");
}

void CallFront::check_action_values(const std::byte* rows, const std::vector<int32_t>& ids) const {
  const SpaceSpec& act = pool_.spaces().action;
  const size_t n = ids.size();
  if (act.kind == SpaceSpec::Kind::kDiscrete) {
    const int64_t* v = reinterpret_cast<const int64_t*>(rows);
    for (size_t i = 0; i < n; ++i)
      if (v[i] < act.start || v[i] >= act.start + act.n) {
        std::ostringstream msg;
        msg << "action " << v[i] << " for env " << ids[i] << " is outside Discrete(" << act.n
            << (act.start ? ", start=" + std::to_string(act.start) : std::string()) << "): valid actions are "
            << act.start << ".." << act.start + act.n - 1;
        throw std::invalid_argument(msg.str());
      }
    return;
  }
  const size_t per = act.count();
  auto check = [&](auto* v) {
    for (size_t i = 0; i < n * per; ++i)
      if (!std::isfinite(v[i])) {
        std::ostringstream msg;
        msg << "action for env " << ids[i / per] << " is not finite (" << v[i]
            << "); envhive rejects NaN and infinite actions";
        throw std::invalid_argument(msg.str());
      }
  };
  if (act.dtype == DType::kFloat32)
    check(reinterpret_cast<const float*>(rows));
  else if (act.dtype == DType::kFloat64)
    check(reinterpret_cast<const double*>(rows));
}

void CallFront::check_fits_float32(const double* v, const std::vector<int32_t>& ids) const {
  const size_t per = pool_.spaces().action.count();
  constexpr double kFloat32Max = 3.4028234663852886e38;
  for (size_t i = 0; i < ids.size() * per; ++i)
    if (std::isfinite(v[i]) && std::fabs(v[i]) > kFloat32Max) {
      std::ostringstream msg;
      msg << "action for env " << ids[i / per] << " is not finite as float32 (" << v[i]
          << " overflows it); envhive rejects NaN and infinite actions";
      throw std::invalid_argument(msg.str());
    }
}

void CallFront::check_steppable(const std::vector<int32_t>& ids, bool held) const {
  if (pool_.never_reset() > 0)
    for (int32_t id : held ? all_ids_ : ids)
      if (!pool_.was_reset(id))
        throw ResetNeededError("env " + std::to_string(id) +
                               " has not been reset: call reset() (or async_reset() and recv()) before stepping it" +
                               (held ? std::string(" (a partial step of a sync pool reports every env)") : ""));
  if (pool_.options().autoreset_mode == AutoresetMode::kDisabled)
    for (int32_t id : ids)
      if (pool_.episode_over(id))
        throw std::invalid_argument("env " + std::to_string(id) +
                                    " has ended its episode and autoreset_mode is 'disabled': reset it first with "
                                    "reset(options={'reset_mask': mask})");
}

void CallFront::check_can_receive() const {
  if (pool_.outstanding() < pool_.options().batch_size) {
    std::ostringstream msg;
    msg << "recv() would wait forever: " << pool_.outstanding() << " env(s) in flight, batch_size is "
        << pool_.options().batch_size << "; send() actions (or async_reset()) first";
    throw std::invalid_argument(msg.str());
  }
}

void CallFront::convert_raw_actions(const EnvhiveBuffer& a, size_t n, std::vector<std::byte>& rows) const {
  const SpaceSpec& act = pool_.spaces().action;
  const bool discrete = act.kind == SpaceSpec::Kind::kDiscrete;
  const size_t per = discrete ? 1 : act.count();
  if (a.elements != static_cast<int64_t>(n * per))
    throw std::invalid_argument("actions hold " + std::to_string(a.elements) + " values; expected " +
                                std::to_string(n) + " rows x " + std::to_string(per));
  const bool integer = a.dtype == ENVHIVE_INT32 || a.dtype == ENVHIVE_INT64 || a.dtype == ENVHIVE_UINT8;
  const bool real = a.dtype == ENVHIVE_FLOAT32 || a.dtype == ENVHIVE_FLOAT64;
  if (discrete ? !integer : !(real || integer))
    throw std::invalid_argument(std::string("actions for a ") + (discrete ? "Discrete" : "Box") +
                                " action space must be " + (discrete ? "integers" : "real numbers") + ", got " +
                                dtype_name(static_cast<DType>(a.dtype)));
  rows.resize(n * per * dtype_size(act.dtype));
  const size_t count = n * per;
  auto convert = [&]<class Out>(Out* out) {
    auto from = [&]<class In>(const In* in) {
      for (size_t i = 0; i < count; ++i) out[i] = static_cast<Out>(in[i]);
    };
    switch (a.dtype) {
      case ENVHIVE_UINT8: from(static_cast<const uint8_t*>(a.data)); break;
      case ENVHIVE_INT32: from(static_cast<const int32_t*>(a.data)); break;
      case ENVHIVE_INT64: from(static_cast<const int64_t*>(a.data)); break;
      case ENVHIVE_FLOAT32: from(static_cast<const float*>(a.data)); break;
      case ENVHIVE_FLOAT64: from(static_cast<const double*>(a.data)); break;
      default: break;
    }
  };
  switch (act.dtype) {
    case DType::kInt64: convert(reinterpret_cast<int64_t*>(rows.data())); break;
    case DType::kInt32: convert(reinterpret_cast<int32_t*>(rows.data())); break;
    case DType::kFloat32: convert(reinterpret_cast<float*>(rows.data())); break;
    case DType::kFloat64: convert(reinterpret_cast<double*>(rows.data())); break;
    default: throw std::invalid_argument(std::string("action dtype ") + dtype_name(act.dtype) + " is not supported");
  }
}

void CallFront::plan_held(const std::vector<int32_t>& ids, std::vector<int32_t>& out, std::vector<Command>& cmds) {
  out.assign(ids.begin(), ids.end());
  cmds.assign(ids.size(), Command::kStep);
  ++stamp_value_;
  for (int32_t id : ids) stamp_[static_cast<size_t>(id)] = stamp_value_;
  for (int32_t id : all_ids_)
    if (stamp_[static_cast<size_t>(id)] != stamp_value_) {
      out.push_back(id);
      cmds.push_back(Command::kEmit);
    }
}

void CallFront::plan_reset(const std::vector<bool>* mask_or_all, bool receive, std::vector<int32_t>& ids,
                           std::vector<Command>& cmds) const {
  const int n = pool_.options().num_envs;
  if (mask_or_all == nullptr) {
    ids = all_ids_;
    cmds.assign(ids.size(), Command::kReset);
    return;
  }
  const std::vector<bool>& mask = *mask_or_all;
  if (mask.size() != static_cast<size_t>(n))
    throw std::invalid_argument("reset mask must have " + std::to_string(n) + " entries");
  ids.clear();
  cmds.clear();
  for (int i = 0; i < n; ++i) {
    if (mask[static_cast<size_t>(i)]) {
      ids.push_back(i);
      cmds.push_back(Command::kReset);
    } else if (pool_.sync()) {
      if (!pool_.was_reset(i))
        throw ResetNeededError("env " + std::to_string(i) +
                               " has not been reset: a partial reset of a sync pool reports every env, so reset all "
                               "envs first (reset() without a reset_mask)");
      ids.push_back(i);
      cmds.push_back(Command::kEmit);
    }
  }
  if (pool_.sync()) return;  // a sync pool drains what is in flight first
  for (int32_t id : ids)
    if (pool_.in_flight(id))
      throw std::invalid_argument("cannot reset env " + std::to_string(id) + ": it is in flight; recv() it first");
  // reset() returns (obs, info) of the next batch: a step result in it would lose its reward and flags.
  if (receive && pool_.steps_in_flight() > 0)
    throw std::invalid_argument(
        "reset(options={'reset_mask': ...}) of an async pool returns the next batch as (obs, info), so the " +
        std::to_string(pool_.steps_in_flight()) + " step(s) in flight would lose their rewards and flags: recv() them "
        "first");
}

void CallFront::check_reset_fills(size_t count, bool receive) const {
  if (receive && pool_.outstanding() + static_cast<int>(count) < pool_.options().batch_size)
    throw std::invalid_argument("resetting " + std::to_string(count) + " env(s) cannot fill a batch of " +
                                std::to_string(pool_.options().batch_size) + " with " +
                                std::to_string(pool_.outstanding()) + " others in flight; recv() would wait forever");
}

std::vector<int32_t> CallFront::check_render_ids(const int64_t* v, size_t m) {
  const int n = pool_.options().num_envs;
  std::vector<int32_t> ids;
  ++stamp_value_;
  for (size_t i = 0; i < m; ++i) {
    if (v[i] < 0 || v[i] >= n)
      throw std::invalid_argument("env_ids: " + std::to_string(v[i]) + " is out of range [0, " + std::to_string(n) +
                                  ")");
    const auto id = static_cast<int32_t>(v[i]);
    if (stamp_[static_cast<size_t>(id)] == stamp_value_)
      throw std::invalid_argument("env_ids: env " + std::to_string(id) + " appears twice");
    stamp_[static_cast<size_t>(id)] = stamp_value_;
    ids.push_back(id);
  }
  check_drawable(ids);
  return ids;
}

std::vector<int32_t> CallFront::render_all() const {
  check_drawable(all_ids_);
  return all_ids_;
}

void CallFront::check_drawable(const std::vector<int32_t>& ids) const {
  std::vector<int32_t> busy;
  for (int32_t id : ids)
    if (pool_.in_flight(id)) busy.push_back(id);
  if (!busy.empty()) {
    std::ostringstream msg;
    msg << "cannot render env" << (busy.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < busy.size() && i < kIdsNamed; ++i) msg << (i ? ", " : "") << busy[i];
    if (busy.size() > kIdsNamed) msg << " (and " << busy.size() - kIdsNamed << " more)";
    msg << ": in flight (sent, not yet returned by recv()); render(env_ids=...) the envs awaiting an action, "
           "or recv() them first";
    throw std::invalid_argument(msg.str());
  }
  if (pool_.never_reset() > 0)
    for (int32_t id : ids)
      if (!pool_.was_reset(id))
        throw ResetNeededError("env " + std::to_string(id) + " has not been reset: call reset() before render()");
}

std::string CallFront::failure_message(const std::vector<EnvFailure>& failures) const {
  std::ostringstream msg;
  msg << "env " << failures[0].env_id << " raised: " << failures[0].message;
  if (failures.size() > 1) msg << " (and " << failures.size() - 1 << " more env(s) failed in this batch)";
  msg << "; this batch is lost. The failed env(s) start a new episode on their next step"
      << (pool_.options().autoreset_mode == AutoresetMode::kDisabled
              ? " once reset with reset(options={'reset_mask': mask}) (autoreset_mode='disabled')"
              : "");
  return msg.str();
}

}  // namespace envhive::bindings
