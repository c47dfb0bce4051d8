// The pool: owns num_envs envs, the worker threads, the work queue and the ring of output
// batches. It is Python-free; the bindings validate input before anything reaches it.
//
// Threading contract: send/dispatch, begin_recv/finish_recv, drain and close are called by one
// thread at a time (the bindings hold the GIL there). Waiting (wait_batch, wait_drained) runs
// without the GIL, and the waiting thread steps queued envs itself while it waits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "batch.h"
#include "env.h"

namespace envhive {

enum class AutoresetMode : uint8_t { kNextStep, kSameStep, kDisabled };
enum class Command : uint8_t { kStep, kReset, kEmit };  // kEmit: write the current obs, no step

struct PoolOptions {
  int num_envs = 1;
  int batch_size = 1;
  int num_threads = 1;
  int thread_affinity_offset = -1;
  AutoresetMode autoreset_mode = AutoresetMode::kNextStep;
  int64_t max_episode_steps = 0;  // 0: no time limit
};

struct EnvFailure {
  int32_t env_id;
  std::string message;
};

class Pool {
 public:
  // seeds: one per env, or empty for fresh OS entropy.
  Pool(const TaskDef& task, Config config, PoolOptions options, const std::vector<uint64_t>& seeds);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  const Spaces& spaces() const { return spaces_; }
  const PoolOptions& options() const { return opt_; }
  const BatchLayout& layout() const { return layout_; }
  const std::shared_ptr<BlockRecycler>& recycler() const { return recycler_; }
  bool sync() const { return opt_.batch_size == opt_.num_envs; }
  bool closed() const { return closed_; }
  size_t action_row_bytes() const { return action_row_bytes_; }

  // --- state the caller validates against (read between calls only) ---
  bool in_flight(int32_t id) const { return in_flight_[id] != 0; }
  bool episode_over(int32_t id) const { return env_state_[id].needs_reset; }
  int outstanding() const { return outstanding_; }

  // Queue envs for work. `actions` holds one row per id (read for kStep only; may be null when
  // no id steps). `cmds` is one command per id, or a single command for all when cmds_n == 1.
  void dispatch(const int32_t* ids, size_t n, const Command* cmds, size_t cmds_n, const std::byte* actions);
  void set_seed(int32_t id, uint64_t seed);
  // Applied by the worker just before the env's next reset.
  void set_reset_option(int32_t id, std::string name, std::vector<double> values);

  // Wait (no GIL) until the next batch is complete, up to `timeout`; `interrupted` is polled
  // every few milliseconds while sleeping. Returns false on timeout or interruption.
  template <class Interrupted>
  bool wait_batch(std::optional<std::chrono::steady_clock::time_point> deadline, Interrupted&& interrupted) {
    Slot& slot = ring_[recv_count_ % ring_.size()];
    // Only in sync mode does the caller step envs itself. In async mode the num_threads workers
    // step them: a caller inside a slow env's step could not return a batch that is ready (nor
    // honour a timeout), and the fast envs would wait for it -- the case async mode exists for.
    // Measured and rejected: an async caller that steps envs while it waits (num_threads - 1
    // workers) ran HalfCheetah 8 envs / batch 4 at 0.96x the physical limit instead of 0.88x, but
    // one slow env could then hold back every ready batch.
    return wait_until([&] { return slot.finished.load(std::memory_order_acquire) >= opt_.batch_size; },
                      deadline, interrupted, sync());
  }
  // After wait_batch succeeded: takes the batch's block (the caller now owns it and must give
  // it back through recycler()->release), marks its envs idle and returns failures of its envs.
  std::byte* finish_recv(std::vector<EnvFailure>& failures);

  // Wait until nothing is in flight, then forget unreceived results so the next batch starts clean.
  template <class Interrupted>
  bool drain(Interrupted&& interrupted) {
    const uint64_t target = sent_total_;
    drain_target_.store(target, std::memory_order_seq_cst);
    const bool ok = wait_until([&] { return completed_total_.load(std::memory_order_acquire) >= target; },
                               std::nullopt, interrupted, true);
    drain_target_.store(UINT64_MAX, std::memory_order_relaxed);
    if (ok) rebase();
    return ok;
  }

  void close();

 private:
  struct alignas(64) Slot {
    std::atomic<std::byte*> block{nullptr};
    std::atomic<int> finished{0};
    std::atomic<bool> failed{false};  // some env of this batch threw: finish_recv reports it
  };
  struct alignas(64) EnvState {
    Command cmd = Command::kStep;
    bool needs_reset = false;
    bool has_seed = false;
    uint64_t seed = 0;
    std::vector<std::pair<std::string, std::vector<double>>> reset_options;
    int64_t elapsed = 0;
    std::string error;  // set by a worker when the env threw
    bool failed = false;
    bool restart = false;  // the env threw: its next step starts a new episode (unless DISABLED)
  };

  template <class Pred, class Interrupted>
  bool wait_until(Pred&& done, std::optional<std::chrono::steady_clock::time_point> deadline,
                  Interrupted&& interrupted, bool help) {
    using clock = std::chrono::steady_clock;
    // Poll for 50 us before sleeping (a futex wake-up costs more than a small batch), yielding
    // the core on every poll: pool threads can share a core (async mode runs num_threads
    // workers beside the caller; the scheduler may co-locate threads), and a pause-spin there
    // holds the core the others need until the next scheduler tick (measured 2-3x slower).
    const auto spin = std::chrono::microseconds(50);
    auto spin_until = clock::now() + spin;
    for (;;) {
      if (done()) return true;
      if (help && help_once(true)) {
        spin_until = clock::now() + spin;
        continue;
      }
      const auto now = clock::now();
      if (deadline && now >= *deadline) return false;
      if (now < spin_until) {
        std::this_thread::yield();
        continue;
      }
      {
        std::unique_lock<std::mutex> lock(wait_mu_);
        waiter_sleeping_.store(true, std::memory_order_seq_cst);
        auto until = now + std::chrono::milliseconds(20);
        if (deadline && *deadline < until) until = *deadline;
        // Queued work wakes the caller only if it helps; otherwise it would loop retaking the GIL.
        wait_cv_.wait_until(lock, until, [&] { return done() || (help && queue_nonempty()); });
        waiter_sleeping_.store(false, std::memory_order_relaxed);
      }
      if (interrupted()) return false;
    }
  }

  bool queue_nonempty() const {
    return queue_head_.load(std::memory_order_seq_cst) < queue_tail_.load(std::memory_order_seq_cst);
  }
  size_t claim(int32_t* out, bool caller);  // claim a chunk of queued env ids; returns how many
  bool help_once(bool caller);               // claim and run one chunk on the calling thread
  struct Outcome {
    double reward = 0.0;
    bool terminated = false, truncated = false, ended = false;
  };
  Outcome advance(int32_t id);  // run the env's queued command (step, reset or emit)
  void write_row(int32_t id, const Outcome& out, std::byte* blk, size_t row);
  void run_chunk(const int32_t* ids, size_t n);  // advance each env, then publish all rows at once
  void worker_loop(int index);
  void notify_waiter();
  void rebase();

  Spaces spaces_;
  PoolOptions opt_;
  BatchLayout layout_;
  std::shared_ptr<BlockRecycler> recycler_;
  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<EnvState> env_state_;
  std::vector<std::byte> actions_;  // one row per env
  size_t action_row_bytes_ = 0;
  size_t participants_ = 1;
  // Sync calls whose whole batch is cheaper than handing work to another core (a few us: waking
  // it and moving each env's lines there) run on the caller alone: a batch estimated below
  // kSoloBelowNs goes solo, one above kSharedAboveNs is shared again (the gap keeps a batch near
  // the line from flipping every call, which would put the workers to sleep and wake them). The
  // estimate is a running mean of the time an env takes (step and write), in ns; -1 until the
  // first chunk ran.
  static constexpr double kSoloBelowNs = 8'000;
  static constexpr double kSharedAboveNs = 16'000;
  alignas(64) std::atomic<double> env_ns_{-1.0};  // own line: written per chunk
  alignas(64) std::atomic<bool> solo_{false};     // set by dispatch: this batch is the caller's only

  // Work queue: a ring of env ids; single producer (the caller), many consumers.
  std::vector<int32_t> queue_;
  alignas(64) std::atomic<uint64_t> queue_head_{0};
  alignas(64) std::atomic<uint64_t> queue_tail_{0};

  // Output side.
  std::vector<Slot> ring_;
  alignas(64) std::atomic<uint64_t> slot_counter_{0};
  alignas(64) std::atomic<uint64_t> completed_total_{0};
  std::atomic<uint64_t> drain_target_{UINT64_MAX};
  uint64_t recv_count_ = 0;   // caller only
  uint64_t sent_total_ = 0;   // caller only
  int outstanding_ = 0;       // caller only: sent, not yet received
  std::vector<uint8_t> in_flight_;  // caller only

  // Sleeping and waking.
  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::atomic<int> sleeping_workers_{0};
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  std::atomic<bool> waiter_sleeping_{false};
  std::atomic<bool> stop_{false};
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace envhive
