#include "call_front.h"

#include <array>
#include <cmath>
#include <sstream>

namespace envhive::bindings {

namespace {

// The most env ids an error message lists.
constexpr size_t kIdsNamed = 10;

// The installed templates (empty until install_call_messages): written once when a module loads,
// before any pool of it exists; read by the calls of its pools.
std::array<std::string, static_cast<size_t>(Msg::kCount)>& templates() {
  static auto* t = new std::array<std::string, static_cast<size_t>(Msg::kCount)>();  // never destroyed
  return *t;
}

bool field_char(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

std::string text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::vector<std::string> install_call_messages(const std::vector<std::pair<std::string, std::string>>& given) {
  std::array<std::string, static_cast<size_t>(Msg::kCount)> found;
  std::vector<std::string> missing;
  for (size_t k = 0; k < found.size(); ++k) {
    bool seen = false;
    for (const auto& [name, tmpl] : given)
      if (name == kMsgNames[k]) {
        found[k] = tmpl;
        seen = true;
      }
    if (!seen) missing.emplace_back(kMsgNames[k]);
  }
  if (missing.empty()) templates() = std::move(found);
  return missing;
}

// {name} of lower-case letters and underscores is a field (as envhive.call_rules.message reads it);
// any other brace is text.
std::string call_message(Msg msg, MsgFields fields) {
  const std::string& tmpl = templates()[static_cast<size_t>(msg)];
  std::string out;
  if (tmpl.empty()) {  // not installed: the rule and its values, still a clear error
    out = std::string("envhive call rule '") + kMsgNames[static_cast<size_t>(msg)] + "'";
    for (const auto& [name, value] : fields) out += std::string(" ") + name + "=" + value;
    return out;
  }
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl[i] == '{') {
      size_t j = i + 1;
      while (j < tmpl.size() && field_char(tmpl[j])) ++j;
      if (j > i + 1 && j < tmpl.size() && tmpl[j] == '}') {
        const std::string_view name(tmpl.data() + i + 1, j - i - 1);
        for (const auto& [key, value] : fields)
          if (name == key) {
            out += value;
            i = j + 1;
            break;
          }
        if (i == j + 1) continue;
      }
    }
    out += tmpl[i++];
  }
  return out;
}

CallFront::CallFront(Pool& pool)
    : pool_(pool), disabled_(pool.options().autoreset_mode == AutoresetMode::kDisabled) {
  const int n = pool.options().num_envs;
  all_ids_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all_ids_[static_cast<size_t>(i)] = i;
  stamp_.assign(static_cast<size_t>(n), 0);
}

const std::vector<int32_t>& CallFront::awaiting_all() {
  for (int32_t id : all_ids_)
    if (pool_.in_flight(id))
      throw std::invalid_argument(call_message(Msg::kInFlightAll, {{"env", std::to_string(id)}}));
  return all_ids_;
}

void CallFront::check_sync_send(size_t n, bool partial) const {
  const int num_envs = pool_.options().num_envs;
  if (pool_.sync() && !partial && n != static_cast<size_t>(num_envs))
    throw std::invalid_argument(
        call_message(Msg::kSyncSendAll, {{"num_envs", std::to_string(num_envs)}, {"count", std::to_string(n)}}));
}

void CallFront::check_action_values(const std::byte* rows, const std::vector<int32_t>& ids) const {
  const SpaceSpec& act = pool_.spaces().action;
  const size_t n = ids.size();
  if (act.kind == SpaceSpec::Kind::kDiscrete) {
    const int64_t* v = reinterpret_cast<const int64_t*>(rows);
    for (size_t i = 0; i < n; ++i)
      if (v[i] < act.start || v[i] >= act.start + act.n)
        throw std::invalid_argument(call_message(
            Msg::kActionDiscrete, {{"action", std::to_string(v[i])},
                                   {"env", std::to_string(ids[i])},
                                   {"n", std::to_string(act.n)},
                                   {"start", act.start ? ", start=" + std::to_string(act.start) : std::string()},
                                   {"low", std::to_string(act.start)},
                                   {"high", std::to_string(act.start + act.n - 1)}}));
    return;
  }
  const size_t per = act.count();
  auto check = [&](auto* v) {
    for (size_t i = 0; i < n * per; ++i)
      if (!std::isfinite(v[i]))
        throw std::invalid_argument(call_message(
            Msg::kActionNotFinite,
            {{"env", std::to_string(ids[i / per])}, {"value", text(static_cast<double>(v[i]))}}));
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
    if (std::isfinite(v[i]) && std::fabs(v[i]) > kFloat32Max)
      throw std::invalid_argument(call_message(
          Msg::kActionOverflows, {{"env", std::to_string(ids[i / per])}, {"dtype", "float32"}, {"value", text(v[i])}}));
}

void CallFront::check_steppable(const std::vector<int32_t>& ids, bool held) const {
  if (pool_.never_reset() > 0)
    for (int32_t id : held ? all_ids_ : ids)
      if (!pool_.was_reset(id))
        throw ResetNeededError(
            call_message(held ? Msg::kNeverResetHeld : Msg::kNeverReset, {{"env", std::to_string(id)}}));
  if (disabled_)
    for (int32_t id : ids)
      if (pool_.episode_over(id)) throw std::invalid_argument(call_message(Msg::kEnded, {{"env", std::to_string(id)}}));
}

void CallFront::check_can_receive() const {
  if (pool_.outstanding() < pool_.options().batch_size)
    throw std::invalid_argument(call_message(Msg::kRecvForever,
                                             {{"in_flight", std::to_string(pool_.outstanding())},
                                              {"batch_size", std::to_string(pool_.options().batch_size)}}));
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
  if (discrete ? !integer : !(real || integer)) {
    const std::string dtype = dtype_name(static_cast<DType>(a.dtype));
    throw std::invalid_argument(discrete ? call_message(Msg::kActionIntegers, {{"space", "Discrete"}, {"dtype", dtype}})
                                         : call_message(Msg::kActionReals, {{"dtype", dtype}}));
  }
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
    throw std::invalid_argument(call_message(Msg::kResetMaskSize, {{"num_envs", std::to_string(n)}}));
  ids.clear();
  cmds.clear();
  for (int i = 0; i < n; ++i) {
    if (mask[static_cast<size_t>(i)]) {
      ids.push_back(i);
      cmds.push_back(Command::kReset);
    } else if (pool_.sync()) {
      if (!pool_.was_reset(i))
        throw ResetNeededError(call_message(Msg::kPartialResetSync, {{"env", std::to_string(i)}}));
      ids.push_back(i);
      cmds.push_back(Command::kEmit);
    }
  }
  if (pool_.sync()) return;  // a sync pool drains what is in flight first
  for (int32_t id : ids)
    if (pool_.in_flight(id))
      throw std::invalid_argument(call_message(Msg::kResetInFlight, {{"env", std::to_string(id)}}));
  // reset() returns (obs, info) of the next batch: a step result in it would lose its reward and flags.
  if (receive && pool_.steps_in_flight() > 0)
    throw std::invalid_argument(
        call_message(Msg::kResetDropsSteps, {{"steps", std::to_string(pool_.steps_in_flight())}}));
}

void CallFront::check_reset_fills(size_t count, bool receive) const {
  if (receive && pool_.outstanding() + static_cast<int>(count) < pool_.options().batch_size)
    throw std::invalid_argument(call_message(Msg::kResetCannotFill,
                                             {{"count", std::to_string(count)},
                                              {"batch_size", std::to_string(pool_.options().batch_size)},
                                              {"others", std::to_string(pool_.outstanding())}}));
}

std::vector<int32_t> CallFront::check_render_ids(const int64_t* v, size_t m) {
  const int n = pool_.options().num_envs;
  std::vector<int32_t> ids;
  ++stamp_value_;
  for (size_t i = 0; i < m; ++i) {
    if (v[i] < 0 || v[i] >= n)
      throw std::invalid_argument(call_message(
          Msg::kEnvIdRange, {{"what", "env_ids"}, {"env", std::to_string(v[i])}, {"num_envs", std::to_string(n)}}));
    const auto id = static_cast<int32_t>(v[i]);
    if (stamp_[static_cast<size_t>(id)] == stamp_value_)
      throw std::invalid_argument(
          call_message(Msg::kEnvIdTwice, {{"what", "env_ids"}, {"env", std::to_string(id)}, {"call", "render()"}}));
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
    std::ostringstream envs;
    envs << "env" << (busy.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < busy.size() && i < kIdsNamed; ++i) envs << (i ? ", " : "") << busy[i];
    if (busy.size() > kIdsNamed) envs << " (and " << busy.size() - kIdsNamed << " more)";
    throw std::invalid_argument(call_message(Msg::kRenderInFlight, {{"envs", envs.str()}}));
  }
  if (pool_.never_reset() > 0)
    for (int32_t id : ids)
      if (!pool_.was_reset(id))
        throw ResetNeededError(call_message(Msg::kRenderNeverReset, {{"env", std::to_string(id)}}));
}

std::string CallFront::failure_message(const std::vector<EnvFailure>& failures) const {
  const std::string others =
      failures.size() > 1 ? call_message(Msg::kEnvFailedOthers, {{"count", std::to_string(failures.size() - 1)}}) : "";
  return call_message(Msg::kEnvFailed, {{"env", std::to_string(failures[0].env_id)},
                                        {"error", failures[0].message},
                                        {"others", others},
                                        {"disabled", disabled_ ? call_message(Msg::kEnvFailedDisabled) : ""}});
}

}  // namespace envhive::bindings
