// NativePool: the pool as Python sees it (native_pool.cc) and as XLA programs reach it through
// the C interface (pool_abi.cc). Calls are checked by the call front (call_front.h) before anything
// is queued; results leave as numpy views of a block (batch_views.h, dm_columns.h, frames.h).
//
// Threads: a pool serves one call at a time. A call made while another thread's call is inside
// the pool (waiting with the GIL released) raises PoolBusyError; close() from another thread makes
// the call in flight return (it raises PoolClosedError) and then closes.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core/pool.h"
#include "batch_views.h"
#include "call_front.h"
#include "dm_columns.h"
#include "frames.h"
#include "pool_abi.h"

namespace envhive::bindings {

class NativePool;

// This module's live pools by serial number, so a pool named from outside (a handle in an XLA
// program, through the C interface in pool_abi.h) is used only while it exists. Serials are never
// reused. A pool leaves before it closes; acquire() enters a pool under the same lock, so once a
// pool has left, no new outside call can enter it.
class PoolRegistry {
 public:
  static PoolRegistry& get();
  uint64_t add(NativePool* pool);
  void remove(uint64_t serial);
  // Runs f(pool or nullptr) under the lock.
  template <class F>
  auto with(uint64_t serial, F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(serial);
    return f(it == pools_.end() ? nullptr : it->second);
  }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, NativePool*> pools_;
  uint64_t next_ = 1;
};

// The C interface's state of one pool (pool_abi.cc): touched only by the call inside.
struct XlaState {
  std::atomic<uint64_t> next_call{0};  // the call number the next handle must carry
  bool resync = false;                 // the last call failed: accept any number once
  bool checked = false;                // check_send accepted the rows in `rows` for the front's ids
  uint64_t current = 0;                // the number of the call inside
  // EnvPool's overlap idiom gives one handle to a send and a recv (`h1 = send(h0, a, ids);
  // h2, s = recv(h0)`), which XLA may run in either order. The first of the two leaves its number
  // open (and which it was); the other, given that number once, is its pair.
  static constexpr uint64_t kNoCall = ~uint64_t{0};
  enum class Op : uint8_t { kNone, kSend, kRecv };
  uint64_t open_call = kNoCall;  // a lone send's or recv's number, while its pair may come
  Op open_op = Op::kNone;        // which one it was
  Op pair_of = Op::kNone;        // the call inside is the pair of a lone `pair_of`
  bool sent = false;             // the call inside sent actions (a send, or a step)
  bool received = false;         // the call inside received a batch (a recv, or a step)
  std::vector<std::byte> rows;         // actions converted to the pool's action dtype
};

class NativePool {
 public:
  // seeds: env id -> seed (envhive.checks.env_seeds), the shape reset() takes too; an env
  // without one draws fresh OS entropy.
  NativePool(const std::string& task_id, nb::dict config, const PoolOptions& options, nb::dict seeds);
  ~NativePool();

  const Spaces& spaces() const { return pool_->spaces(); }
  const PoolOptions& options() const { return pool_->options(); }
  bool closed() const { return pool_->closed() || closing_.load(std::memory_order_acquire); }
  int outstanding() const { return pool_->outstanding(); }
  void close();

  // ---- the Python surface (native_pool.cc) ----
  void send(nb::handle actions, nb::handle env_id, bool partial);
  nb::tuple recv(std::optional<double> timeout);
  nb::tuple step(nb::handle actions, nb::handle env_id, bool partial);
  nb::tuple step_dm(nb::handle actions, nb::handle env_id);
  nb::tuple recv_dm(std::optional<double> timeout);
  DmColumns& dm() { return *dm_; }
  nb::tuple reset(nb::handle mask, nb::dict seeds, nb::dict options);
  void async_reset(nb::handle mask, nb::dict seeds, nb::dict options);
  nb::object render(nb::handle env_ids);

  // ---- the C interface (pool_abi.cc): no Python, no GIL; one call between acquire and release ----
  uint64_t serial() const { return serial_; }
  uint64_t next_xla_call() const { return xla_.next_call.load(std::memory_order_relaxed); }
  int32_t abi_acquire(uint64_t call, EnvhiveStatus* st);
  void abi_release(uint64_t call, bool reached_pool, bool ok);
  void abi_describe(EnvhivePoolShape* shape) const;
  int32_t abi_check_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* st);
  int32_t abi_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* st);
  int32_t abi_wait(EnvhiveStatus* st);
  int32_t abi_write_obs_into(const EnvhiveBuffer& obs);
  void abi_set_assisted(bool on) { pool_->set_assisted(on); }
  bool abi_assist() { return pool_->assist(); }
  int32_t abi_recv(const EnvhiveBuffer* outputs, int64_t count, EnvhiveStatus* st);

 private:
  // One call at a time: entered with the GIL held, so only a thread waiting inside the pool with
  // the GIL released can be found here.
  class Call {
   public:
    explicit Call(NativePool& p);
    ~Call() { p_.leave(); }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    NativePool& p_;
  };

  bool try_enter() {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void leave() { busy_.store(false, std::memory_order_release); }
  [[noreturn]] void raise_closed(const char* during) const;
  void send_unguarded(nb::handle actions, nb::handle env_id, bool partial);
  void queue_reset(nb::handle mask, nb::dict seeds, nb::dict options, bool receive);
  void wait_batch(std::optional<double> timeout, const char* what);
  void finish_wait(WaitResult r, const char* what) const;
  const std::vector<int32_t>& resolve_ids(nb::handle env_id);
  nb::object convert_actions(nb::handle actions, const std::vector<int32_t>& ids);
  std::vector<int32_t> render_ids(nb::handle env_ids);
  nb::tuple take_batch(bool dm = false);
  [[noreturn]] void raise_failures(const std::vector<EnvFailure>& failures);
  size_t num_outputs() const;
  void copy_batch(const std::byte* blk, const EnvhiveBuffer* out, bool obs_in_place) const;

  // A copy of the pool object in a child forked from the process that made it (the child's
  // garbage collector may free it): the pool's threads live in the parent only, so the copy never
  // closes, joins or destroys anything of theirs (its locks and condition variables may be held or
  // waited on by threads the child does not have: destroying them would wait forever).
  bool forked_copy() const { return getpid() != owner_pid_; }
  const pid_t owner_pid_ = getpid();
  std::unique_ptr<Pool> pool_;
  std::string task_id_;
  uint64_t max_seed_ = UINT64_MAX;  // TaskMeta::max_seed
  std::unique_ptr<CallFront> front_;
  std::unique_ptr<BatchViews> views_;
  std::unique_ptr<Frames> frames_;
  std::unique_ptr<DmColumns> dm_;
  std::atomic<bool> busy_{false};     // a call is inside (see Call)
  std::atomic<bool> closing_{false};  // close() began: calls raise PoolClosedError
  std::vector<int32_t> held_ids_;     // a partial sync step: the stepped envs, then the held ones
  std::vector<Command> held_cmds_;
  uint64_t serial_ = 0;  // this module's number for the pool (PoolRegistry)
  XlaState xla_;
};

// Exports this module's C interface (pool_abi.h) as the capsule POOL_ABI, for envhive._xla.
void bind_pool_abi(nb::module_& m);

}  // namespace envhive::bindings
