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
    // The waiting caller steps queued envs itself: it is one of the num_threads. In async mode it
    // takes only envs known to be quick (Helper::kQuickEnvs): a caller inside a slow env's step
    // could not return a batch that is ready, and the fast envs would wait for it -- the case
    // async mode exists for. A standby worker steps in whenever the caller does not (see
    // standby_loop). A recv with a timeout only waits, so its deadline holds.
    const Helper help = sync()                   ? Helper::kAnyEnv
                        : deadline || !standby_ ? Helper::kNone
                                                : Helper::kQuickEnvs;
    return wait_until([&] { return slot.finished.load(std::memory_order_acquire) >= opt_.batch_size; },
                      deadline, interrupted, help);
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
                               std::nullopt, interrupted, Helper::kAnyEnv);
    drain_target_.store(UINT64_MAX, std::memory_order_relaxed);
    if (ok) rebase();
    return ok;
  }

  void close();

 private:
  // Who claims queued envs: a worker, or the waiting caller -- any env, only quick envs, or none.
  enum class Helper : uint8_t { kWorker, kAnyEnv, kQuickEnvs, kNone };
  // An env is quick when the chunk of its last step took under this long: the longest an async
  // caller that steps it can keep a ready batch waiting.
  static constexpr double kQuickBelowNs = 1'000'000;
  // The most work (by the running mean of an env's cost) an async caller claims at once.
  static constexpr double kCallerChunkNs = 20'000;

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
    // Async pools: its last step ran in a chunk under kQuickBelowNs (unknown until it stepped
    // once). Written by the stepping thread, read by the caller's claim: atomic.
    std::atomic<bool> quick{false};
    // Pools whose envs prepare (sync): held while the env steps or prepares.
    std::atomic<bool> busy{false};
  };

  // While the caller waits in the pool it marks itself helping (the standby worker then stays
  // out); when it leaves, or cannot take what is queued, it lets the standby step.
  class CallerPresence {
   public:
    CallerPresence(Pool& pool, Helper help) : pool_(pool), helping_(help != Helper::kNone) {
      pool_.caller_helping_.store(helping_, std::memory_order_seq_cst);
      if (!helping_ && pool_.queue_nonempty()) pool_.wake_standby();
    }
    ~CallerPresence() {
      pool_.caller_left_ns_.store(now_ns(), std::memory_order_relaxed);
      pool_.caller_helping_.store(false, std::memory_order_seq_cst);
    }
    CallerPresence(const CallerPresence&) = delete;
    CallerPresence& operator=(const CallerPresence&) = delete;
    void helping() {
      if (!helping_) pool_.caller_helping_.store(helping_ = true, std::memory_order_seq_cst);
    }
    void cannot_help() {
      if (helping_) pool_.caller_helping_.store(helping_ = false, std::memory_order_seq_cst);
      if (pool_.queue_nonempty()) pool_.wake_standby();
    }

   private:
    Pool& pool_;
    bool helping_;
  };

  template <class Pred, class Interrupted>
  bool wait_until(Pred&& done, std::optional<std::chrono::steady_clock::time_point> deadline,
                  Interrupted&& interrupted, Helper help) {
    using clock = std::chrono::steady_clock;
    // Poll for 50 us before sleeping (a futex wake-up costs more than a small batch), yielding
    // the core on every poll: pool threads can share a core (the scheduler may co-locate
    // threads), and a pause-spin there holds the core the others need until the next scheduler
    // tick (measured 2-3x slower).
    const auto spin = std::chrono::microseconds(50);
    auto spin_until = clock::now() + spin;
    std::optional<CallerPresence> presence;
    if (standby_) presence.emplace(*this, help);
    for (;;) {
      if (done()) return true;
      if (help != Helper::kNone && help_once(help, 0)) {
        if (presence) presence->helping();
        spin_until = clock::now() + spin;
        continue;
      }
      // Sync: nothing left to claim, so prepare one of the caller's own stepped envs.
      if (help == Helper::kAnyEnv && prepare_ && prepare_one(0)) continue;
      // Async: the next queued env is not known quick; the standby takes it.
      if (presence && help == Helper::kQuickEnvs && queue_nonempty()) presence->cannot_help();
      const auto now = clock::now();
      if (deadline && now >= *deadline) return false;
      if (now < spin_until) {
        std::this_thread::yield();
        continue;
      }
      if (presence) presence->cannot_help();  // asleep, it steps nothing
      {
        std::unique_lock<std::mutex> lock(wait_mu_);
        waiter_sleeping_.store(true, std::memory_order_seq_cst);
        auto until = now + std::chrono::milliseconds(20);
        if (deadline && *deadline < until) until = *deadline;
        // Queued work wakes the caller only if it can take it; otherwise it would loop retaking the
        // GIL. (Async: only the caller queues work, so nothing new arrives while it sleeps.)
        wait_cv_.wait_until(lock, until, [&] { return done() || (help == Helper::kAnyEnv && queue_nonempty()); });
        waiter_sleeping_.store(false, std::memory_order_relaxed);
      }
      if (interrupted()) return false;
    }
  }

  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  bool queue_nonempty() const {
    return queue_head_.load(std::memory_order_seq_cst) < queue_tail_.load(std::memory_order_seq_cst);
  }
  // Claim a chunk of queued env ids for participant `self` (the caller is 0); returns how many.
  size_t claim(int32_t* out, Helper who, size_t self);
  size_t claim_sync(int32_t* out, Helper who, size_t self);
  bool help_once(Helper who, size_t self);  // claim and run one chunk on the calling thread
  struct Outcome {
    double reward = 0.0;
    bool terminated = false, truncated = false, ended = false;
  };
  Outcome advance(int32_t id);  // run the env's queued command (step, reset or emit)
  void write_row(int32_t id, const Outcome& out, std::byte* blk, size_t row);
  void run_chunk(const int32_t* ids, size_t n);  // advance each env, then publish all rows at once
  void record_env_ns(double ns);                 // fold one env's cost into env_ns_
  bool prepare_one(size_t self);  // prepare one env `self` stepped in this call; false if none
  void worker_loop(int index);
  void standby_loop(int index);
  void wake_standby();
  void pin_thread(int index) const;
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
  // first chunk ran. Async pools keep the same mean (of the step alone) to size the caller's claims.
  static constexpr double kSoloBelowNs = 8'000;
  static constexpr double kSharedAboveNs = 16'000;
  alignas(64) std::atomic<double> env_ns_{-1.0};  // own line: written per chunk
  alignas(64) std::atomic<bool> solo_{false};     // set by dispatch: this batch is the caller's only

  // Sync pools: every call queues all envs, so instead of the ring each participant (the
  // caller is 0) owns a fixed segment of env ids, steps it from the front and then steals from
  // the back of the others' segments. An env is thus stepped by the same thread call after
  // call and its data stays in that core's cache (HalfCheetah-v5: a step that moves to another
  // core costs 10% more). span: front in the low 32 bits, back in the high 32.
  struct alignas(64) Segment {
    std::atomic<uint64_t> span{0};
  };
  std::vector<Segment> segments_;
  // Sync pools whose envs can prepare (Env::prepare): a participant with nothing to claim
  // prepares the envs it stepped in this call (kept in its own list, tagged with the call), so
  // the tail of a call and the caller's Python between calls do part of the next call's work.
  struct alignas(64) PrepareList {
    std::vector<int32_t> ids;
    uint64_t call = 0;
  };
  bool prepare_ = false;
  std::vector<PrepareList> prepare_lists_;
  std::atomic<uint64_t> call_{0};  // sync dispatches so far

  // Async pools: one FIFO lane of queued env ids per participant (the caller and the standby
  // share lane 0), each env always in the same lane (lane_of: id * lanes / num_envs, a contiguous
  // range of ids, like a sync segment though not cut at the same ids). A thread takes from
  // its own lane, oldest first, then from the others': an env is mostly stepped on one core,
  // and nothing waits behind more than its lane's newer envs. Single producer (the caller),
  // many consumers; each lane a ring of num_envs slots in lane_ring_.
  struct alignas(64) Lane {
    std::atomic<uint64_t> head{0};
    std::atomic<uint64_t> tail{0};
  };
  std::vector<Lane> lanes_;
  std::vector<int32_t> lane_ring_;
  std::vector<uint64_t> lane_seq_;  // beside each slot: its place in the order sent
  std::vector<uint64_t> lane_tail_scratch_;  // dispatch only
  size_t lane_of(int32_t id) const {
    return static_cast<size_t>(id) * lanes_.size() / static_cast<size_t>(opt_.num_envs);
  }
  // Envs queued and claimed so far, over all lanes or segments: queue_nonempty().
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

  // Async pools with num_threads >= 2 run num_threads - 1 workers and a standby: the waiting
  // caller is the num_threads-th, and the standby steps only while the caller does not -- it has
  // been out of recv for kStandbyAfterNs (the workers wake the standby then), or it cannot take
  // the next queued env, or it sleeps. So at most num_threads threads step at once, and no
  // context switch is paid per batch.
  static constexpr int64_t kStandbyAfterNs = 50'000;
  bool standby_ = false;
  alignas(64) std::atomic<bool> caller_helping_{false};
  std::atomic<int64_t> caller_left_ns_{0};
  std::mutex standby_mu_;
  std::condition_variable standby_cv_;
  bool standby_go_ = false;  // guarded by standby_mu_
  std::atomic<bool> standby_asleep_{false};
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace envhive
