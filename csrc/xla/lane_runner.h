// Runs the lanes of one batched XLA call (jax.vmap over a stack of pool handles) in parallel.
//
// Waiting for a lane is where its envs get stepped: an envhive pool counts the thread waiting in
// it as one of its threads, and a pool of num_threads=1 has no other. Waiting for the lanes one
// after another on the XLA thread would step 1-thread pools one after another, so the call hands
// lanes to process-wide helper threads as well: the calling thread and the helpers each take the
// next lane nobody has taken until none is left, and the call returns when every lane is done.
// With one helper per core but the caller's, a vmap over B pools of 1 thread steps on every core
// with no more threads than cores. A helper takes tens of microseconds to join, so lanes that are
// quicker than that (by a running mean of a lane's time, tuning::kLaneShare*) are waited for one
// after another on the calling thread alone. ENVHIVE_XLA_LANE_THREADS (read once) sets the threads
// in all, the caller included; 1 waits for the lanes one after another on the calling thread.
//
// A thread with no lane left to take then helps the lanes still running (Assist): it steps envs of
// their pools as a guest (Pool::assist), so the last lanes finish on every thread env by env, as
// one pool's envs do, instead of leaving the threads that are done idle.
//
// One call at a time uses the helpers; a call made meanwhile on another thread (XLA running two
// programs at once) runs its lanes on its own thread. The helpers start with the first batched
// call and live as long as the runner (the process's: as long as the process); between calls each
// polls (yielding) for tuning::kLaneHelperSpin, then sleeps on a condition variable.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/tuning.h"

namespace envhive::xla {

class LaneRunner {
 public:
  // The process's runner: one helper per core but one (the caller's), or ENVHIVE_XLA_LANE_THREADS
  // threads in all (1: every lane on the calling thread, one after another). A forked child gets a
  // runner of its own (the parent's helpers are not in it, and its locks may have been held).
  static LaneRunner& instance() {
    static const bool once = [] {
      current().store(new LaneRunner(threads_from_env() - 1));  // never freed
      pthread_atfork(nullptr, nullptr, [] { current().store(new LaneRunner(threads_from_env() - 1)); });
      return true;
    }();
    (void)once;
    return *current().load(std::memory_order_acquire);
  }

  // ENVHIVE_XLA_LANE_THREADS if it is a whole number from 1 to 1024, else the machine's cores.
  static size_t threads_from_env() {
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const char* text = std::getenv("ENVHIVE_XLA_LANE_THREADS");
    if (text == nullptr || *text == '\0') return cores;
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return (*end == '\0' && n >= 1 && n <= 1024) ? static_cast<size_t>(n) : cores;
  }

  explicit LaneRunner(size_t helpers) : max_helpers_(helpers) {}
  ~LaneRunner() {  // (the process's runner is never destroyed: its helpers end with the process)
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  LaneRunner(const LaneRunner&) = delete;
  LaneRunner& operator=(const LaneRunner&) = delete;

  // How threads help lanes they did not take. `prepare(shared)` runs on the calling thread before
  // any lane: whether other threads will take part (the lanes' pools then leave envs for guests).
  // `help(i)`, when shared, runs on each thread that finds no lane left to take, for every lane,
  // starting after the last one it took: lane i may be running, done or not yet begun (help
  // returns at once when nothing is left in it). Neither may throw.
  struct Assist {
    std::function<void(bool)> prepare;
    std::function<void(size_t)> help;
  };

  // Calls lane(i) once for every i in [0, n), on this thread and on up to min(n - 1, helpers)
  // helper threads, and returns when every call has returned (and every `assist->help` too).
  // `queue`, when given, runs on this thread after `assist->prepare` and before any lane: it hands
  // the lanes their work (a pool told beforehand that guests will come leaves its own workers
  // asleep). If it returns false no lane runs and run() returns false. `lane` must not throw.
  bool run(size_t n, const std::function<void(size_t)>& lane, const Assist* assist = nullptr,
           const std::function<bool()>* queue = nullptr) {
    std::unique_lock<std::mutex> own(use_mu_, std::try_to_lock);
    if (n <= 1 || max_helpers_ == 0 || !own.owns_lock()) {
      if (assist != nullptr) assist->prepare(false);
      if (queue != nullptr && !(*queue)()) return false;
      for (size_t i = 0; i < n; ++i) lane(i);
      return true;
    }
    // use_mu_ held from here: this call alone reads and updates the running mean.
    const double rest_ns = mean_lane_ns_ * static_cast<double>(n - 1);
    sharing_ = rest_ns >= (sharing_ ? tuning::kLaneShareBelowNs : tuning::kLaneShareAboveNs);
    using clock = std::chrono::steady_clock;
    std::atomic<int64_t> lanes_ns{0};
    if (assist != nullptr) assist->prepare(sharing_);
    if (queue != nullptr && !(*queue)()) return false;
    if (sharing_) {  // lanes run side by side: each is timed on its own thread
      const std::function<void(size_t)> timed = [&](size_t i) {
        const auto start = clock::now();
        lane(i);
        lanes_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count(),
                           std::memory_order_relaxed);
      };
      share(n, timed, assist != nullptr ? &assist->help : nullptr);
    } else {  // one after another: the lanes' times add up to the loop's (one clock pair, not one per lane)
      const auto start = clock::now();
      for (size_t i = 0; i < n; ++i) lane(i);
      lanes_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count(),
                     std::memory_order_relaxed);
    }
    const double mean = static_cast<double>(lanes_ns.load(std::memory_order_relaxed)) / static_cast<double>(n);
    mean_lane_ns_ = mean_lane_ns_ == 0.0 ? mean : mean_lane_ns_ + tuning::kLaneCostWeight * (mean - mean_lane_ns_);
    return true;
  }

  // Whether the last batched call shared its lanes with the helpers (for tests).
  bool sharing() {
    std::lock_guard<std::mutex> lock(use_mu_);
    return sharing_;
  }

 private:
  static std::atomic<LaneRunner*>& current() {
    static std::atomic<LaneRunner*> runner{nullptr};
    return runner;
  }

  // Runs the lanes on this thread and the helpers; use_mu_ held.
  void share(size_t n, const std::function<void(size_t)>& lane, const std::function<void(size_t)>* help) {
    Job job{&lane, help, n};
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_helpers(std::min(n - 1, max_helpers_));
      job_ = &job;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    take_lanes(job);
    // Helpers still inside are finishing their last lane: poll, then sleep.
    const auto spin_until = std::chrono::steady_clock::now() + tuning::kCallerSpin;
    while (job.done.load(std::memory_order_acquire) < n && std::chrono::steady_clock::now() < spin_until)
      std::this_thread::yield();
    std::unique_lock<std::mutex> lock(mu_);
    job_ = nullptr;  // a helper arriving from now on finds no job
    done_.wait(lock, [&] { return job.users == 0; });
  }

  struct Job {
    const std::function<void(size_t)>* lane;
    const std::function<void(size_t)>* help;  // null: no Assist
    size_t n;
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    size_t users = 0;  // helpers that joined and have not left (mu_)
  };

  static void take_lanes(Job& job) {
    size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    size_t last = i;
    for (; i < job.n; i = job.next.fetch_add(1, std::memory_order_relaxed)) {
      (*job.lane)(i);
      job.done.fetch_add(1, std::memory_order_release);
      last = i;
    }
    // No lane left to take: help the others, from the one after this thread's last (threads that
    // finish at once spread over different lanes). A lane already done costs a look.
    if (job.help != nullptr && job.done.load(std::memory_order_acquire) < job.n)
      for (size_t k = 1; k <= job.n; ++k) (*job.help)((last + k) % job.n);
  }

  // mu_ held. A thread that cannot be started leaves fewer helpers: the caller takes their lanes.
  void start_helpers(size_t want) {
    try {
      while (helpers_.size() < want) helpers_.emplace_back([this] { helper_loop(); });
    } catch (const std::system_error&) {
    }
  }

  void helper_loop() {
    uint64_t seen = 0;
    for (;;) {
      const auto spin_until = std::chrono::steady_clock::now() + tuning::kLaneHelperSpin;
      while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until)
        std::this_thread::yield();
      Job* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
        if (stop_) return;
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;  // null when that call is already over
        if (job != nullptr) ++job->users;
      }
      if (job == nullptr) continue;
      take_lanes(*job);  // each lane's pool orders its own memory; mu_ orders the job's
      std::lock_guard<std::mutex> lock(mu_);
      if (--job->users == 0) done_.notify_all();
    }
  }

  const size_t max_helpers_;
  std::mutex use_mu_;  // one batched call at a time
  double mean_lane_ns_ = 0.0;  // use_mu_: running mean of a lane's time (0: no call yet)
  bool sharing_ = false;       // use_mu_: whether the last call shared its lanes
  std::mutex mu_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;                   // mu_
  std::atomic<uint64_t> generation_{0};  // calls posted (written under mu_)
  std::vector<std::thread> helpers_;     // mu_
  bool stop_ = false;                    // mu_
};

}  // namespace envhive::xla
