// The checks every call into a pool passes before anything is queued, without Python: env ids,
// action values, whether the envs may be stepped, whether a receive can be served, reset masks
// and render ids. NativePool (the Python surface, native_pool.cc) and the C interface of XLA
// programs (pool_abi.cc) both call them, so a bad call gets the same answer either way.
//
// Errors are C++ exceptions: std::invalid_argument (Python: ValueError; XLA: INVALID_ARGUMENT),
// CallTypeError (TypeError), ResetNeededError (envhive.ResetNeeded). native_pool.cc registers
// their translation to Python once per module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../core/pool.h"
#include "pool_abi.h"

namespace envhive::bindings {

// The messages of the call rules. Their texts are envhive.call_rules.TEMPLATES (Python), which
// envhive.catalog installs into each family module when it loads it (set_call_messages); C++ only
// fills in their {fields}. Names and order: kMsgNames.
enum class Msg : uint8_t {
  kNeverReset, kNeverResetHeld, kInFlight, kInFlightAll, kEnded, kSyncSendAll, kRecvForever,
  kPartialResetSync, kResetInFlight, kResetDropsSteps, kResetCannotFill, kResetMaskSize,
  kRenderInFlight, kRenderNeverReset,
  kEnvIdRange, kEnvIdTwice, kEnvIdForm, kEnvIdIntegers,
  kActionsMissing, kActionShape, kActionIntegers, kActionReals, kActionDiscrete, kActionNotFinite, kActionOverflows,
  kEnvFailed, kEnvFailedOthers, kEnvFailedDisabled,
  kCount
};
inline constexpr const char* kMsgNames[] = {
    "never_reset", "never_reset_held", "in_flight", "in_flight_all", "ended", "sync_send_all", "recv_forever",
    "partial_reset_sync", "reset_in_flight", "reset_drops_steps", "reset_cannot_fill", "reset_mask_size",
    "render_in_flight", "render_never_reset",
    "env_id_range", "env_id_twice", "env_id_form", "env_id_integers",
    "actions_missing", "action_shape", "action_integers", "action_reals", "action_discrete", "action_not_finite",
    "action_overflows",
    "env_failed", "env_failed_others", "env_failed_disabled",
};
static_assert(std::size(kMsgNames) == static_cast<size_t>(Msg::kCount));

using MsgFields = std::initializer_list<std::pair<const char*, std::string>>;
// The message `msg` with its fields filled in. Before the templates are installed (a module imported
// without envhive.catalog), the rule's name and its fields.
std::string call_message(Msg msg, MsgFields fields = {});
// Installs the templates by name; returns the names of kMsgNames that `templates` lacks (then
// nothing is installed).
std::vector<std::string> install_call_messages(const std::vector<std::pair<std::string, std::string>>& templates);

// An env stepped (or drawn) before its first reset.
struct ResetNeededError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A value of the wrong type (Python: TypeError), e.g. float actions for a Discrete action space.
struct CallTypeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class CallFront {
 public:
  explicit CallFront(Pool& pool);

  const std::vector<int32_t>& all_ids() const { return all_ids_; }

  // Every env, for a send without env ids: none may be in flight.
  const std::vector<int32_t>& awaiting_all();
  // The ids of one send: in range, each once, none in flight. The result lives until the next call.
  template <class T>
  const std::vector<int32_t>& check_ids(const T* ids, size_t n);
  // The ids the last check_ids accepted.
  const std::vector<int32_t>& checked_ids() const { return ids_; }
  // A sync pool steps every env at once (unless `partial`).
  void check_sync_send(size_t n, bool partial) const;
  // Action rows of the pool's action dtype (int64 for Discrete), one per id: Discrete values in
  // range, Box values finite.
  void check_action_values(const std::byte* rows, const std::vector<int32_t>& ids) const;
  // Every env in `ids` may be stepped: reset at least once and (DISABLED) not at an episode's end.
  // `held`: a partial sync step, whose other envs report their state too (so must have been reset).
  void check_steppable(const std::vector<int32_t>& ids, bool held = false) const;
  // Real actions given as float64 for a float32 Box: each finite value must stay finite as float32
  // (1e300 would become inf in the cast).
  void check_fits_float32(const double* values, const std::vector<int32_t>& ids) const;
  // A batch can be received: at least batch_size envs are in flight.
  void check_can_receive() const;
  // `actions` (n rows, any integer dtype for Discrete, a real or integer one for Box) converted to
  // the pool's action dtype into `rows` (the C interface's actions, which arrive as raw buffers).
  void convert_raw_actions(const EnvhiveBuffer& actions, size_t n, std::vector<std::byte>& rows) const;

  // A partial sync step: the stepped envs (`ids`, in their order) then every other env, held.
  void plan_held(const std::vector<int32_t>& ids, std::vector<int32_t>& out, std::vector<Command>& cmds);
  // A reset of the envs `mask` selects (nullptr: all): their ids and commands (a sync pool's other
  // envs report their state, kEmit). `receive`: reset() returns the next batch (not async_reset()).
  void plan_reset(const std::vector<bool>* mask, bool receive, std::vector<int32_t>& ids,
                  std::vector<Command>& cmds) const;
  // After a drain: the reset of `count` envs fills a batch when `receive`.
  void check_reset_fills(size_t count, bool receive) const;
  // The env ids render() draws: in range, each once, none in flight, each reset once.
  std::vector<int32_t> check_render_ids(const int64_t* ids, size_t n);
  std::vector<int32_t> render_all() const;

  // What recv raises for the envs that failed in a batch.
  std::string failure_message(const std::vector<EnvFailure>& failures) const;

 private:
  void check_drawable(const std::vector<int32_t>& ids) const;

  Pool& pool_;
  const bool disabled_;  // autoreset_mode is DISABLED: an env past its episode's end needs a reset
  std::vector<int32_t> all_ids_, ids_;
  std::vector<uint64_t> stamp_;  // stamp_[id] == stamp_value_: id seen in the current check
  uint64_t stamp_value_ = 0;
};

template <class T>
const std::vector<int32_t>& CallFront::check_ids(const T* v, size_t m) {
  const int n = pool_.options().num_envs;
  ids_.resize(m);
  ++stamp_value_;
  for (size_t i = 0; i < m; ++i) {
    if (v[i] < 0 || v[i] >= n)
      throw std::invalid_argument(call_message(
          Msg::kEnvIdRange, {{"what", "env_id"}, {"env", std::to_string(v[i])}, {"num_envs", std::to_string(n)}}));
    const auto id = static_cast<int32_t>(v[i]);
    if (stamp_[static_cast<size_t>(id)] == stamp_value_)
      throw std::invalid_argument(
          call_message(Msg::kEnvIdTwice, {{"what", "env_id"}, {"env", std::to_string(id)}, {"call", "send()"}}));
    stamp_[static_cast<size_t>(id)] = stamp_value_;
    if (pool_.in_flight(id)) throw std::invalid_argument(call_message(Msg::kInFlight, {{"env", std::to_string(id)}}));
    ids_[i] = id;
  }
  return ids_;
}

}  // namespace envhive::bindings
