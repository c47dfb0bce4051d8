// The pool: num_envs envs of one task, the threads that step them, the work queue and the ring
// of output batches. It is Python-free; the bindings validate every input before it gets here.
//
// Parts (each with one job): EnvStepper (envs, per-env state, the failure path), WorkQueue (sync
// segments / async lanes: who steps which env), OutputRing (batch blocks and their counters),
// Standby (caller presence in async pools). This class ties them together and runs the threads.
//
// Threading contract:
// - "Caller" methods (dispatch, set_seed, set_reset_option, wait_batch, finish_recv, drain,
//   close, and the state getters) are called by one thread at a time; the bindings enforce it and
//   refuse a second thread. Waiting runs without the GIL, and the waiting caller steps queued envs
//   itself: it is one of the num_threads.
// - request_close() may be called from any thread at any time: a caller waiting in the pool
//   returns WaitResult::kClosed within one chunk of envs; close() then runs once no caller is inside.
// - Members below say who writes them: "caller", "any participant" (a pool thread stepping envs,
//   the caller included), or "workers".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "batch.h"
#include "cancel.h"
#include "env_stepper.h"
#include "output_ring.h"
#include "standby.h"
#include "task.h"
#include "tuning.h"
#include "work_queue.h"

namespace envhive {

struct EnvFailure {
  int32_t env_id;
  std::string message;
};

// A frame that could not be drawn (Env::render threw); the env is unaffected.
struct RenderFailure {
  int32_t env_id;
  std::string message;
};

enum class WaitResult : uint8_t { kReady, kTimeout, kInterrupted, kClosed };

// The most envs one pool holds: sizes are checked before anything is allocated.
inline constexpr int kMaxNumEnvs = 1 << 20;

class Pool {
 public:
  // seeds: one per env, or empty for fresh OS entropy. Throws std::invalid_argument on bad options.
  Pool(const TaskDef& task, const Config& config, PoolOptions options, const std::vector<uint64_t>& seeds);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  const Spaces& spaces() const { return spaces_; }
  const PoolOptions& options() const { return opt_; }
  const BatchLayout& layout() const { return layout_; }
  const std::shared_ptr<BlockRecycler>& recycler() const { return ring_.recycler(); }
  bool sync() const { return opt_.batch_size == opt_.num_envs; }
  bool closed() const { return closed_.load(std::memory_order_acquire); }
  bool closing() const { return closing_.load(std::memory_order_acquire); }
  size_t action_row_bytes() const { return stepper_.action_row_bytes(); }

  // --- state the caller validates against (between calls) ---
  bool in_flight(int32_t id) const { return in_flight_[static_cast<size_t>(id)] != 0; }
  bool episode_over(int32_t id) const { return stepper_.state(id).needs_reset; }
  // Envs never reset since the pool was built: stepping them is an error (ResetNeeded).
  int never_reset() const { return never_reset_count_; }
  bool was_reset(int32_t id) const { return ever_reset_[static_cast<size_t>(id)] != 0; }
  int outstanding() const { return outstanding_; }
  // Envs in flight with a step (not a reset): their rewards and flags are still to be received.
  int steps_in_flight() const { return steps_in_flight_; }

  // Queue envs for work. `actions` holds one row per id (read for kStep only; may be null when no
  // id steps). `cmds` is one command per id, or a single command for all when cmds_n == 1.
  void dispatch(const int32_t* ids, size_t n, const Command* cmds, size_t cmds_n, const std::byte* actions);
  void set_seed(int32_t id, uint64_t seed);
  void set_reset_option(int32_t id, std::string name, std::vector<double> values);  // before its next reset

  // Wait (no GIL) until the next batch is complete or `deadline` passes; `interrupted` (Ctrl-C)
  // is polled about every tuning::kSignalCheckNs of work and every sleep slice.
  template <class Interrupted>
  WaitResult wait_batch(std::optional<std::chrono::steady_clock::time_point> deadline, Interrupted&& interrupted) {
    // The waiting caller steps queued envs itself. In async mode it takes only envs known to be
    // quick: a caller inside a slow env's step could not return a batch that is ready, which is
    // the case async mode is for; the standby steps the others. A recv with a timeout only waits,
    // so its deadline holds.
    const Helper help = sync() ? Helper::kAnyEnv : deadline || !standby_on_ ? Helper::kNone : Helper::kQuickEnvs;
    return wait_until([&] { return ring_.ready(); }, deadline, interrupted, help);
  }
  // After wait_batch returned kReady: takes the batch's block (the caller now owns it and gives it
  // back through recycler()->release), marks its envs idle and returns the failures of its envs.
  // Forgets the obs target.
  std::byte* finish_recv(std::vector<EnvFailure>& failures);

  // Sync pools, the caller, before dispatch: the next batch's observation rows go to `obs`
  // (batch_size rows of layout().obs.row_bytes, row = env id) instead of the block's obs column,
  // which then holds nothing of that batch. For a caller that would copy them out anyway (an XLA
  // call into its output buffer). finish_recv forgets it; a caller whose wait ended otherwise
  // (kClosed) must settle() before `obs` may go away.
  void set_obs_target(std::byte* obs) { obs_target_ = sync() ? obs : nullptr; }
  std::byte* obs_target() const { return obs_target_; }  // the caller
  // The caller: runs (on this thread) or waits out every env dispatched so far, even while the
  // pool is closing, then forgets the obs target, so no pool thread writes to it afterwards.
  // Bounded by the envs in flight (one batch in a sync pool); nothing else is received.
  void settle();

  // Wait until nothing is in flight, then forget unreceived results so the next batch starts clean.
  template <class Interrupted>
  WaitResult drain(Interrupted&& interrupted) {
    const uint64_t target = sent_total_;
    drain_target_.store(target, std::memory_order_seq_cst);
    const WaitResult r =
        wait_until([&] { return ring_.completed() >= target; }, std::nullopt, interrupted, Helper::kAnyEnv);
    drain_target_.store(UINT64_MAX, std::memory_order_relaxed);
    if (r == WaitResult::kReady) rebase();
    return r;
  }

  // Draw envs ids[0..n) into `frames` (n frames of spaces().render.frame_bytes(), in the order of
  // ids), without the GIL, on at most RenderSpec::threads pool threads, the caller included (idle
  // workers join; in async pools they finish their steps first). Every id must be an env that is
  // not in flight (the bindings check), and the pool must have been made with options().render.
  // A frame whose env threw is zeroed and reported in `failures`. kInterrupted (`interrupted()`
  // said so, polled about every tuning::kSignalCheckNs) or kClosed (request_close) stop early.
  WaitResult render(const int32_t* ids, size_t n, uint8_t* frames, std::vector<RenderFailure>& failures,
                    const std::function<bool()>& interrupted);
  // The pool threads that may render at once (1 until rendering is possible).
  size_t render_threads() const { return render_threads_; }

  // Guests (sync pools): threads from outside the pool that step envs of the call in flight, so a
  // batch of pools waited for in parallel (a vmapped XLA call) balances env by env, as one pool
  // does. set_assisted(true) is the caller's, before its wait: the caller then claims its envs in
  // parts (not a 1-thread pool's whole segment at once), leaving some for a guest to take.
  // assist() is any thread's (several at once too) while the caller is inside a call (so close()
  // cannot run): it steps envs nobody claimed yet until none is left and returns whether it
  // stepped any (none left: at once). A guest leaves alone a batch the caller runs alone (solo)
  // and an async pool, and never prepares envs. While set_assisted is on, the pool's own workers
  // claim nothing: the caller and its guests (one thread per core in a vmapped call) step it all.
  void set_assisted(bool on) {
    const bool v = on && sync();  // (stored only when it changes: pool workers read its line while they spin)
    if (assisted_.load(std::memory_order_relaxed) != v) assisted_.store(v, std::memory_order_relaxed);
  }
  bool assist();

  // Any thread: make a caller waiting in the pool return kClosed (and every later wait at once).
  void request_close();
  // Stop the threads and free the ring. No caller may be inside the pool (the bindings wait for it).
  void close();

 private:
  // Who claims queued envs: a worker, or the waiting caller -- any env, only quick envs, or none
  // -- or a guest (assist).
  enum class Helper : uint8_t { kWorker, kAnyEnv, kQuickEnvs, kNone, kGuest };

  // While the caller waits in an async pool it marks itself helping (the standby then stays out);
  // when it leaves, or cannot take what is queued, it lets the standby step.
  class CallerPresence {
   public:
    CallerPresence(Pool& pool, Helper help) : pool_(pool) {
      pool_.standby_.caller_enters(help != Helper::kNone, pool_.queue_.nonempty());
    }
    ~CallerPresence() { pool_.standby_.caller_leaves(); }
    CallerPresence(const CallerPresence&) = delete;
    CallerPresence& operator=(const CallerPresence&) = delete;

   private:
    Pool& pool_;
  };

  template <class Pred, class Interrupted>
  WaitResult wait_until(Pred&& done, std::optional<std::chrono::steady_clock::time_point> deadline,
                        Interrupted&& interrupted, Helper help);

  size_t claim(int32_t* out, Helper who, size_t self);
  // Claim and run one chunk on the calling thread; the ns it took (0: there was nothing to claim).
  double help_once(Helper who, size_t self);
  double run_chunk(const int32_t* ids, size_t n);  // advance each env, publish all rows at once; its ns
  void record_cost(double ns, bool steps_only);   // fold one env's cost into env_ns_ (and step_ns_)
  bool prepare_one(size_t self);  // prepare one env `self` stepped in this call; false if none
  // A worker: draws frames of the render job posted as number `job` until none is left to claim.
  void join_render(size_t self, uint64_t job);
  void worker_loop(int index);
  void standby_loop(int index);
  void pin_thread(int index) const;
  void notify_waiter();
  void rebase();

  Spaces spaces_;
  PoolOptions opt_;
  BatchLayout layout_;
  EnvStepper stepper_;
  size_t participants_ = 1;
  // set_assisted: guests may come to the call in flight (written by the caller between calls).
  std::atomic<bool> assisted_{false};
  WorkQueue queue_;
  OutputRing ring_;

  // Running means of an env's cost per chunk (step or reset, and write) in ns, -1 until measured
  // (any participant; the races are benign: they only steer heuristics). env_ns_ over every chunk:
  // a sync pool's solo choice, an async caller's claims. step_ns_ over chunks of steps only: how
  // much a sync caller claims at once so it answers Ctrl-C within about one env.
  alignas(64) std::atomic<double> env_ns_{-1.0};
  std::atomic<double> step_ns_{-1.0};
  uint32_t untimed_chunks_ = 0;  // sync calls the caller runs alone (no workers, or solo): it alone writes it
  // Sync pools with workers: this batch runs on the caller alone (caller writes in dispatch; a
  // spinning worker reads it: nothing the caller writes per call shares its line).
  alignas(64) std::atomic<bool> solo_{false};

  // Sync pools whose envs can prepare (Env::prepare): a participant with nothing to claim prepares
  // the envs it stepped in this call (its own list, tagged with the call), so the tail of a call
  // and the caller's Python between calls do part of the next call's work.
  struct alignas(64) PrepareList {
    std::vector<int32_t> ids;  // its participant only
    uint64_t call = 0;
  };
  alignas(64) bool prepare_ = false;
  // set_obs_target (caller-written before dispatch, read by the call's participants in run_chunk).
  std::byte* obs_target_ = nullptr;
  std::vector<PrepareList> prepare_lists_;
  std::atomic<uint64_t> call_{0};  // sync dispatches so far (caller; preparing pools only)

  // Caller-only bookkeeping.
  alignas(64) std::atomic<uint64_t> drain_target_{UINT64_MAX};
  uint64_t sent_total_ = 0;         // envs dispatched since the last rebase
  int outstanding_ = 0;             // sent, not yet received
  static constexpr uint8_t kSteppingFlight = 1, kResettingFlight = 2;
  std::vector<uint8_t> in_flight_;  // per env: sent (a step, or a reset or emit), not yet received
  int steps_in_flight_ = 0;
  std::vector<uint8_t> ever_reset_;  // per env: a reset was dispatched since the pool was built
  int never_reset_count_ = 0;

  // Sleeping and waking.
  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::atomic<int> sleeping_workers_{0};
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  std::atomic<bool> waiter_sleeping_{false};
  std::atomic<bool> stop_{false};     // close(): workers exit
  std::atomic<bool> closing_{false};  // request_close(): waits return kClosed
  std::atomic<bool> closed_{false};

  // Rendering (options().render). The caller posts a job; each rendering participant (the caller
  // 0, workers 1..render_threads_-1) claims frames from `next` and draws them with its own slot.
  // Workers count themselves in render_users_ before they look at the job and out when done; the
  // caller closes the job (render_posted_ = 0) and waits for render_users_ to reach 0 before it
  // touches the job again, so a worker only ever draws into the job it joined.
  struct RenderJob {
    const int32_t* ids = nullptr;
    size_t n = 0;
    uint8_t* frames = nullptr;
    std::vector<std::string> errors;  // per frame: written by the thread that drew it
    std::vector<uint8_t> failed;      // as errors
    alignas(64) std::atomic<size_t> next{0};
  };
  size_t render_threads_ = 1;
  std::unique_ptr<RenderSlot[]> render_slots_;  // render_threads_ slots; made in the constructor, empty
  RenderJob render_job_;
  alignas(64) std::atomic<uint64_t> render_posted_{0};  // the open job's number; 0: none
  std::atomic<int> render_users_{0};
  uint64_t render_jobs_ = 0;  // caller: jobs posted so far

  bool standby_on_ = false;  // async pools with num_threads >= 2
  Standby standby_;
  std::vector<std::thread> workers_;
};

template <class Pred, class Interrupted>
WaitResult Pool::wait_until(Pred&& done, std::optional<std::chrono::steady_clock::time_point> deadline,
                            Interrupted&& interrupted, Helper help) {
  using clock = std::chrono::steady_clock;
  // Poll before sleeping, yielding the core on every poll: pool threads can share a core, and a
  // pause-spin there holds the core the others need until the next scheduler tick. The poll
  // window opens when the caller first finds nothing to do (and again after each chunk it steps):
  // a wait that its own chunks complete, a small sync call's usual case, reads no clock at all.
  constexpr clock::time_point kNotOpen = clock::time_point::min();
  clock::time_point spin_until = kNotOpen;
  std::optional<CallerPresence> presence;
  if (standby_on_) presence.emplace(*this, help);
  // Envs the caller steps here may be long (cancel.h): their cancellation points poll Ctrl-C too.
  using Poll = std::remove_reference_t<Interrupted>;
  std::optional<CancelScope> cancel;
  if (help != Helper::kNone)
    cancel.emplace(
        closing_, [](void* f) { return static_cast<bool>((*static_cast<Poll*>(f))()); },
        const_cast<void*>(static_cast<const void*>(std::addressof(interrupted))));
  double work_since_check = 0.0;  // ns spent stepping envs since Ctrl-C was last polled
  for (;;) {
    // Closing first: a batch that completed because close() cancelled its long steps (cancel.h)
    // is not a result; the call raises PoolClosedError, as any call the close() overtook.
    if (closing_.load(std::memory_order_relaxed)) return WaitResult::kClosed;
    if (done()) return WaitResult::kReady;
    if (help != Helper::kNone) {
      if (const double work = help_once(help, 0); work > 0.0) {  // the ns the chunk took
        if (cancel->interrupted()) return WaitResult::kInterrupted;  // a cancellation point saw Ctrl-C
        if (presence) standby_.caller_helping();
        work_since_check += work;
        if (work_since_check >= static_cast<double>(tuning::kSignalCheckNs)) {
          work_since_check = 0.0;
          if (interrupted()) return WaitResult::kInterrupted;
        }
        spin_until = kNotOpen;
        continue;
      }
    }
    // Sync: nothing left to claim, so prepare one of the caller's own stepped envs.
    if (help == Helper::kAnyEnv && prepare_ && prepare_one(0)) continue;
    // Async: the next queued env is not known quick; the standby takes it.
    if (presence && help == Helper::kQuickEnvs && queue_.nonempty()) standby_.caller_cannot_help(true);
    const auto now = clock::now();
    if (deadline && now >= *deadline) return WaitResult::kTimeout;
    if (spin_until == kNotOpen) spin_until = now + tuning::kCallerSpin;
    if (now < spin_until) {
      std::this_thread::yield();
      continue;
    }
    if (presence) standby_.caller_cannot_help(queue_.nonempty());  // asleep, it steps nothing
    {
      std::unique_lock<std::mutex> lock(wait_mu_);
      waiter_sleeping_.store(true, std::memory_order_seq_cst);
      auto until = now + tuning::kSleepSlice;
      if (deadline && *deadline < until) until = *deadline;
      // Queued work wakes the caller only if it can take it; otherwise it would loop retaking the
      // GIL. (Async: only the caller queues work, so nothing new arrives while it sleeps.)
      wait_cv_.wait_until(lock, until, [&] {
        return done() || closing_.load(std::memory_order_relaxed) || (help == Helper::kAnyEnv && queue_.nonempty());
      });
      waiter_sleeping_.store(false, std::memory_order_relaxed);
    }
    work_since_check = 0.0;
    if (interrupted()) return WaitResult::kInterrupted;
  }
}

}  // namespace envhive
