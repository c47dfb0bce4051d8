// Cancellation points: how a long step gives way to close() and Ctrl-C.
//
// A task whose step loops many times (DeepMind Control's physics sub-steps times its action
// repeats, a MuJoCo frame_skip) calls cancellation_point() between iterations. The pool installs a
// CancelScope on every thread while it steps the pool's envs (workers, the standby, guests, and
// the caller waiting in a call); cancellation_point() then throws StepCancelled
//  - on any of them, once the pool is closing (close() or the pool's destruction, from any
//    thread): close() returns within one iteration instead of waiting for the step to finish;
//  - on the caller's own thread, when its Ctrl-C poll (the bindings' PyErr_CheckSignals) reports a
//    signal, polled about every tuning::kSignalCheckNs: a one-env sync pool stepping a long step
//    on the calling thread sees Ctrl-C within one iteration.
// StepCancelled goes through the pool's one failure path: the env's step failed (its batch, if it
// is ever received, raises EnvError "step cancelled ..."), and it restarts on its next step. A
// thread outside any scope (a task's own loop benchmark) is never cancelled.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "tuning.h"

namespace envhive {

struct StepCancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CancelScope {
 public:
  // Polls Ctrl-C (true: interrupted, the Python error is set); called with `arg`.
  using Poll = bool (*)(void* arg);

  explicit CancelScope(const std::atomic<bool>& closing, Poll poll = nullptr, void* poll_arg = nullptr)
      : closing_(&closing), poll_(poll), poll_arg_(poll_arg), previous_(current()) {
    current() = this;
    if (poll_) next_poll_ = std::chrono::steady_clock::now() + std::chrono::nanoseconds(tuning::kSignalCheckNs);
  }
  ~CancelScope() { current() = previous_; }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

  // A cancellation point on this thread said Ctrl-C: the caller's wait returns kInterrupted.
  bool interrupted() const { return interrupted_; }

  // This thread's innermost scope (nullptr: none).
  static CancelScope*& current() {
    static thread_local CancelScope* scope = nullptr;
    return scope;
  }

  void check() {
    if (closing_->load(std::memory_order_relaxed)) throw StepCancelled("step cancelled: the pool was closed");
    if (interrupted_) throw StepCancelled(kInterruptedMessage);  // the rest of the caller's chunk
    if (poll_ == nullptr || (++calls_ & (kCallsPerClockRead - 1)) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_poll_) return;
    next_poll_ = now + std::chrono::nanoseconds(tuning::kSignalCheckNs);
    if (poll_(poll_arg_)) {
      interrupted_ = true;
      throw StepCancelled(kInterruptedMessage);
    }
  }

 private:
  static constexpr const char* kInterruptedMessage =
      "step cancelled: interrupted (KeyboardInterrupt) while the env stepped";
  static constexpr uint32_t kCallsPerClockRead = 16;  // a power of 2: the clock is read every 16th point
  const std::atomic<bool>* closing_;
  Poll poll_;
  void* poll_arg_;
  CancelScope* previous_;
  bool interrupted_ = false;
  uint32_t calls_ = 0;
  std::chrono::steady_clock::time_point next_poll_{};
};

// Throws StepCancelled when this thread's pool is closing, or its caller was interrupted (above).
// Cheap (a thread-local read and a relaxed load): call it once per iteration of a long loop.
inline void cancellation_point() {
  if (CancelScope* scope = CancelScope::current()) scope->check();
}

}  // namespace envhive
