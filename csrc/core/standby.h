// Caller presence and the standby worker of async pools.
//
// An async pool with num_threads >= 2 runs num_threads - 1 workers and a standby: the waiting
// caller is the num_threads-th stepping thread, and the standby steps only while the caller does
// not -- it has been out of recv for tuning::kStandbyAfterNs (running Python between batches; a
// worker that finishes a chunk then wakes the standby), cannot take the next queued env, or
// sleeps. So at most num_threads threads step at once and no context switch is paid per batch.
//
// Writers: the caller (enter/leave/helping/cannot_help), workers (after_chunk), the standby
// thread (sleep), close (shutdown). Everything shared is atomic or guarded by mu_.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "tuning.h"

namespace envhive {

class Standby {
 public:
  // --- the caller, while it waits in the pool ---
  void caller_enters(bool helping, bool queued) {
    helping_.store(helping, std::memory_order_seq_cst);
    if (!helping && queued) wake();
  }
  void caller_leaves() {
    left_ns_.store(now_ns(), std::memory_order_relaxed);
    helping_.store(false, std::memory_order_seq_cst);
  }
  void caller_helping() {
    if (!helping_.load(std::memory_order_relaxed)) helping_.store(true, std::memory_order_seq_cst);
  }
  // The caller cannot take what is queued (or goes to sleep): the standby steps instead.
  void caller_cannot_help(bool queued) {
    if (helping_.load(std::memory_order_relaxed)) helping_.store(false, std::memory_order_seq_cst);
    if (queued) wake();
  }
  bool caller_is_helping() const { return helping_.load(std::memory_order_seq_cst); }

  // --- a worker, after each chunk: wake the standby when work is queued (`queued()`, asked last:
  // it costs two loads of shared lines) and the caller has been away a while ---
  template <class Queued>
  void after_chunk(Queued&& queued) {
    if (asleep_.load(std::memory_order_relaxed) && !helping_.load(std::memory_order_relaxed) && queued() &&
        now_ns() - left_ns_.load(std::memory_order_relaxed) >= tuning::kStandbyAfterNs)
      wake();
  }

  // --- the standby thread ---
  // Sleep until woken; with `poll` (work queued while the caller is away) at most kStandbyPoll.
  void sleep(bool poll, const std::atomic<bool>& stop);
  void wake();
  void shutdown();

  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

 private:
  alignas(64) std::atomic<bool> helping_{false};  // the caller is in the pool and steps envs
  std::atomic<int64_t> left_ns_{0};                // when the caller last left the pool
  std::atomic<bool> asleep_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool go_ = false;  // guarded by mu_
};

}  // namespace envhive
