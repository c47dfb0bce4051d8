#include "pool.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <stdexcept>
#include <string>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace envhive {

namespace {

using tuning::kMaxChunk;

PoolOptions checked(PoolOptions o, const std::vector<uint64_t>& seeds, const Spaces& spaces, const std::string& task) {
  if (o.num_envs < 1 || o.num_envs > kMaxNumEnvs)
    throw std::invalid_argument("num_envs must be in [1, " + std::to_string(kMaxNumEnvs) + "], got " +
                                std::to_string(o.num_envs));
  if (o.batch_size < 1 || o.batch_size > o.num_envs)
    throw std::invalid_argument("batch_size must be in [1, num_envs=" + std::to_string(o.num_envs) + "], got " +
                                std::to_string(o.batch_size));
  if (o.num_threads < 1) throw std::invalid_argument("num_threads must be >= 1, got " + std::to_string(o.num_threads));
  o.num_threads = std::min(o.num_threads, o.num_envs);  // more threads than envs could only idle
  if (o.max_episode_steps < 0) throw std::invalid_argument("max_episode_steps must be >= 0");
  if (!seeds.empty() && seeds.size() != static_cast<size_t>(o.num_envs))
    throw std::invalid_argument("seeds must have one entry per env (" + std::to_string(o.num_envs) + "), got " +
                                std::to_string(seeds.size()));
  // The output blocks must fit in memory with room to spare: refuse before allocating anything.
  const BatchLayout layout(static_cast<size_t>(o.batch_size), spaces, o.autoreset_mode == AutoresetMode::kSameStep);
  const size_t ring_slots = static_cast<size_t>((o.num_envs + o.batch_size - 1) / o.batch_size + 1);
  const double bytes = static_cast<double>(layout.total) * static_cast<double>(ring_slots + 1);
#if defined(__linux__)
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && bytes > physical / 2)
    throw std::invalid_argument(task + ": the pool's output batches need " + std::to_string(bytes / 1e9) +
                                " GB, more than half of this machine's " + std::to_string(physical / 1e9) +
                                " GB of memory; use fewer envs or a smaller batch_size");
#else
  (void)bytes;
  (void)task;
#endif
  return o;
}

}  // namespace

Pool::Pool(const TaskDef& task, const Config& config, PoolOptions options, const std::vector<uint64_t>& seeds)
    : spaces_(task.resolve_spaces(config)),
      opt_(checked(options, seeds, spaces_, task.id())),
      layout_(static_cast<size_t>(opt_.batch_size), spaces_, opt_.autoreset_mode == AutoresetMode::kSameStep),
      stepper_(task, config, spaces_, layout_, opt_, seeds),
      participants_(static_cast<size_t>(opt_.num_threads)),
      queue_(sync(), participants_, static_cast<size_t>(opt_.num_envs)),
      ring_(static_cast<size_t>(opt_.num_envs), static_cast<size_t>(opt_.batch_size),
            std::make_shared<BlockRecycler>(layout_.total,
                                            static_cast<size_t>((opt_.num_envs + opt_.batch_size - 1) / opt_.batch_size) + 5)) {
  const auto n = static_cast<size_t>(opt_.num_envs);
  in_flight_.assign(n, 0);
  ever_reset_.assign(n, 0);
  never_reset_count_ = opt_.num_envs;
  // The calling thread is one of the num_threads: it steps envs while it waits. In sync mode that
  // is all it does in the pool. In async mode it runs the caller's Python between batches, so one
  // of the num_threads is a standby that steps while the caller does not (with num_threads == 1
  // the one thread is a worker and the caller only waits).
  standby_on_ = !sync() && opt_.num_threads >= 2;
  const int workers = sync() || standby_on_ ? opt_.num_threads - 1 : opt_.num_threads;
  if (opt_.render && spaces_.render.available()) {
    const auto cap = spaces_.render.threads > 0 ? static_cast<size_t>(spaces_.render.threads) : participants_;
    render_threads_ = std::min(participants_, cap);
  }
  render_slots_ = std::make_unique<RenderSlot[]>(render_threads_);
  if (sync()) {
    // A prepared step moves the state a frame would draw (MuJoCo: mj_step1 of the next step), so
    // pools that render never prepare.
    prepare_ = participants_ > 1 && stepper_.can_prepare() && !opt_.render;
    if (prepare_) {
      prepare_lists_ = std::vector<PrepareList>(participants_);
      for (auto& l : prepare_lists_) l.ids.reserve(n);
    }
  }
  try {
    for (int w = 0; w < workers; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
    if (standby_on_) workers_.emplace_back([this, workers] { standby_loop(workers); });
  } catch (...) {
    close();
    throw;
  }
}

Pool::~Pool() { close(); }

void Pool::request_close() {
  closing_.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> lock(wait_mu_);
  }
  wait_cv_.notify_all();
}

void Pool::close() {
  if (closed_.exchange(true, std::memory_order_acq_rel)) return;
  closing_.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> lock(work_mu_);
    stop_.store(true, std::memory_order_seq_cst);
  }
  work_cv_.notify_all();
  standby_.shutdown();
  for (auto& t : workers_) t.join();
  workers_.clear();
  ring_.release_blocks();
  // Render state (GL contexts and what they hold) is freed here, on the closing thread: no other
  // thread has it current (each thread ends its slot after every render call).
  for (size_t i = 0; i < render_threads_; ++i) render_slots_[i].release();
  // The envs go now, not when the pool object does (a closed pool's Python object may live on):
  // after the render state that drew them (a renderer's assets must not outlive their model).
  stepper_.release_envs();
  // What the envs held (a task's model: ~430 MB for dm_control's dog, released with its last pool;
  // the workers' GL contexts, gone with their threads above) is free now, but glibc keeps it in
  // the arena of the thread that allocated it: give it back to the system, so that making and
  // closing pools leaves RSS bounded (issue 40). Once per close; it walks every arena (~ms).
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void Pool::set_seed(int32_t id, uint64_t seed) {
  auto& st = stepper_.state(id);
  st.seed = seed;
  st.has_seed = true;
}

void Pool::set_reset_option(int32_t id, std::string name, std::vector<double> values) {
  stepper_.state(id).reset_options.emplace_back(std::move(name), std::move(values));
}

void Pool::dispatch(const int32_t* ids, size_t n, const Command* cmds, size_t cmds_n, const std::byte* actions) {
  if (n == 0) return;
  if (sync() && n != static_cast<size_t>(opt_.num_envs))
    throw std::logic_error("a sync pool queues all its envs at once, got " + std::to_string(n));
  const size_t row = stepper_.action_row_bytes();
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = ids[i];
    const Command cmd = cmds_n == 1 ? cmds[0] : cmds[i];
    stepper_.queue(id, cmd, cmd == Command::kStep ? actions + i * row : nullptr);
    in_flight_[static_cast<size_t>(id)] = cmd == Command::kStep ? kSteppingFlight : kResettingFlight;
    steps_in_flight_ += cmd == Command::kStep;
    if (cmd == Command::kReset && !ever_reset_[static_cast<size_t>(id)]) {
      ever_reset_[static_cast<size_t>(id)] = 1;
      --never_reset_count_;
    }
  }
  // Sync pools with workers: run a batch cheaper than a hand-off on the caller alone.
  const double batch_ns = env_ns_.load(std::memory_order_relaxed) * static_cast<double>(n);
  const bool was_solo = solo_.load(std::memory_order_relaxed);
  bool solo = was_solo;
  if (!sync() || participants_ == 1 || batch_ns < 0.0)
    solo = false;
  else if (batch_ns < tuning::kSoloBelowNs)
    solo = true;
  else if (batch_ns > tuning::kSharedAboveNs)
    solo = false;
  if (solo != was_solo) solo_.store(solo, std::memory_order_relaxed);  // published with the work below
  outstanding_ += static_cast<int>(n);
  sent_total_ += n;
  if (sync()) {  // every env, each once (a permutation of the ids): hand out the segments
    if (prepare_) call_.store(call_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // published with them
    queue_.push_all(n);
  } else {
    queue_.push(ids, n);
  }
  if (!solo && !assisted_.load(std::memory_order_relaxed) && sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(work_mu_); }
    if (n > 1)
      work_cv_.notify_all();
    else
      work_cv_.notify_one();
  }
}

size_t Pool::claim(int32_t* out, Helper who, size_t self) {
  if (queue_.sync()) {
    // A worker looks at nothing the caller writes per call before it knows it may claim.
    const bool solo = solo_.load(std::memory_order_relaxed);
    if (solo && (who == Helper::kWorker || who == Helper::kGuest)) return 0;
    // A call with guests (a shared vmapped XLA call) is stepped by the call's own threads: there
    // are as many as cores, and the pool's workers would only crowd them.
    if (who == Helper::kWorker && assisted_.load(std::memory_order_relaxed)) return 0;
    // The caller claims at most about kSignalCheckNs of steps, so it can answer Ctrl-C within one
    // env of its current one (one env at a time until a step was timed: resets do not vouch for
    // steps). Alone in the pool (solo, or no workers) it takes its whole segment: there is nobody
    // to leave envs for.
    size_t take = kMaxChunk;
    if (who != Helper::kWorker && who != Helper::kGuest) {
      const double step = step_ns_.load(std::memory_order_relaxed);
      take = step > 0.0 ? std::clamp<size_t>(static_cast<size_t>(tuning::kSignalCheckNs / step), 1, kMaxChunk) : 1;
    }
    // Alone in the pool with no guest coming it takes its whole segment (bounded by `take`).
    const bool alone = participants_ == 1 && !assisted_.load(std::memory_order_relaxed);
    return queue_.claim(self, out, take, solo || alone, kAnyEnv);
  }
  if (who != Helper::kQuickEnvs) return queue_.claim(self, out, kMaxChunk, false, kAnyEnv);
  // The waiting async caller: envs known quick only, about kCallerChunkNs of work at most (one env
  // at least): a batch that completes meanwhile waits for the caller's chunk.
  const double each = env_ns_.load(std::memory_order_relaxed);
  const size_t budget = each > 0.0 ? static_cast<size_t>(tuning::kCallerChunkNs / each) : 1;
  const auto quick = [this](int32_t id) { return stepper_.state(id).quick.load(std::memory_order_relaxed); };
  return queue_.claim(self, out, std::clamp<size_t>(budget, 1, kMaxChunk), false, &quick);
}

double Pool::help_once(Helper who, size_t self) {
  int32_t ids[kMaxChunk];
  const size_t n = claim(ids, who, self);
  if (n == 0) return 0.0;
  const double ns = run_chunk(ids, n);
  if (prepare_ && self < participants_) {  // (guests prepare nothing)
    PrepareList& list = prepare_lists_[self];
    const uint64_t call = call_.load(std::memory_order_relaxed);
    if (list.call != call) {
      list.ids.clear();
      list.call = call;
    }
    list.ids.insert(list.ids.end(), ids, ids + n);
  }
  return std::max(ns, 1.0);
}

bool Pool::assist() {
  if (!sync() || !assisted_.load(std::memory_order_relaxed)) return false;
  const CancelScope cancel(closing_);  // a long step gives way to close()
  const size_t slot = queue_.guest_slot();
  bool stepped = false;
  while (!closing_.load(std::memory_order_relaxed) && help_once(Helper::kGuest, slot) > 0.0) stepped = true;
  return stepped;
}

bool Pool::prepare_one(size_t self) {
  PrepareList& list = prepare_lists_[self];
  while (!list.ids.empty()) {
    const int32_t id = list.ids.back();
    list.ids.pop_back();
    if (stepper_.prepare(id)) return true;
  }
  return false;
}

void Pool::pin_thread(int index) const {
#if defined(__linux__)
  if (opt_.thread_affinity_offset >= 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((static_cast<unsigned>(opt_.thread_affinity_offset) + static_cast<unsigned>(index)) % cores, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
#else
  (void)index;
#endif
}

void Pool::worker_loop(int index) {
  pin_thread(index);
  const CancelScope cancel(closing_);  // a long step gives way to close()
  using clock = std::chrono::steady_clock;
  const auto queued = [this] { return queue_.nonempty(); };
  // Envs this worker may claim: none in a batch the caller runs alone (solo), none while guests run
  // the call (claim() keeps workers out then). A worker that looked at every queued batch would
  // spin on the queue's lines through a solo call and slow the caller down: with 15 idle workers
  // on 16 cores, a 64-env CartPole pool ran at a third of one core's speed.
  const auto claimable = [this] {
    return !solo_.load(std::memory_order_relaxed) && !assisted_.load(std::memory_order_relaxed) && queue_.nonempty();
  };
  const size_t self = static_cast<size_t>(index) + 1;
  // Workers beyond render_threads_ (all of them in pools that do not render) never look at jobs.
  const bool renders = self < render_threads_;
  uint64_t rendered = 0;  // the last render job this worker joined
  const auto render_waiting = [&] {
    if (!renders) return false;
    const uint64_t job = render_posted_.load(std::memory_order_relaxed);
    return job != 0 && job != rendered;
  };
  while (!stop_.load(std::memory_order_relaxed)) {
    if (help_once(Helper::kWorker, self) > 0.0) {
      if (standby_on_) standby_.after_chunk(queued);  // the caller is away in Python: the standby steps
      continue;
    }
    if (render_waiting()) {
      rendered = render_posted_.load(std::memory_order_seq_cst);
      join_render(self, rendered);
      continue;
    }
    if (prepare_ && prepare_one(self)) continue;
    // Spin briefly: the next batch usually arrives within microseconds, and a futex wake-up costs
    // more than a small env's whole step. Yield while spinning: when the scheduler put this worker
    // on the caller's core, a pure spin would hold the core the caller needs.
    const auto spin_until = clock::now() + tuning::kWorkerSpin;
    bool got_work = false;
    while (clock::now() < spin_until) {
      std::this_thread::yield();
      if (claimable() || stop_.load(std::memory_order_relaxed) || render_waiting()) {
        got_work = true;
        break;
      }
    }
    if (got_work) continue;
    std::unique_lock<std::mutex> lock(work_mu_);
    sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
    work_cv_.wait(lock, [&] { return stop_.load(std::memory_order_seq_cst) || claimable() || render_waiting(); });
    sleeping_workers_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void Pool::standby_loop(int index) {
  pin_thread(index);
  const CancelScope cancel(closing_);
  while (!stop_.load(std::memory_order_relaxed)) {
    // Lane 0 first: the standby stands in for the caller.
    if (!standby_.caller_is_helping() && help_once(Helper::kWorker, 0) > 0.0) continue;
    // Nothing to step, or the caller steps: sleep until the caller or a worker hands over. With
    // work queued and the caller away, look again every kStandbyPoll.
    standby_.sleep(!standby_.caller_is_helping() && queue_.nonempty(), stop_);
  }
}

void Pool::join_render(size_t self, uint64_t job) {
  if (job == 0) return;
  render_users_.fetch_add(1, std::memory_order_seq_cst);
  // Counted in before looking: the caller either sees this worker and waits for it, or closed the
  // job first and this load sees that (0, or a later job's number).
  if (render_posted_.load(std::memory_order_seq_cst) == job) {
    RenderJob& j = render_job_;
    RenderSlot& slot = render_slots_[self];
    const size_t bytes = spaces_.render.frame_bytes();
    for (;;) {
      const size_t i = j.next.fetch_add(1, std::memory_order_relaxed);
      if (i >= j.n) break;
      j.failed[i] = !stepper_.render(j.ids[i], j.frames + i * bytes, bytes, slot, j.errors[i]);
    }
    slot.end();
  }
  render_users_.fetch_sub(1, std::memory_order_seq_cst);
}

WaitResult Pool::render(const int32_t* ids, size_t n, uint8_t* frames, std::vector<RenderFailure>& failures,
                        const std::function<bool()>& interrupted) {
  using clock = std::chrono::steady_clock;
  if (!opt_.render) throw std::logic_error("render(): this pool was made without render_mode");
  if (!spaces_.render.available()) throw std::logic_error("render(): this task has no renderer");
  if (n == 0) return WaitResult::kReady;
  RenderJob& job = render_job_;
  job.ids = ids;
  job.n = n;
  job.frames = frames;
  job.errors.assign(n, std::string());
  job.failed.assign(n, 0);
  job.next.store(0, std::memory_order_relaxed);
  const bool shared = render_threads_ > 1 && n > 1;
  if (shared) {
    render_posted_.store(++render_jobs_, std::memory_order_seq_cst);  // publishes the job's fields
    if (sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
      { std::lock_guard<std::mutex> lock(work_mu_); }
      work_cv_.notify_all();
    }
  }
  const size_t bytes = spaces_.render.frame_bytes();
  RenderSlot& slot = render_slots_[0];
  WaitResult result = WaitResult::kReady;
  auto checked = clock::now();
  for (;;) {
    if (closing_.load(std::memory_order_relaxed)) {
      result = WaitResult::kClosed;
      break;
    }
    const size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= n) break;
    job.failed[i] = !stepper_.render(ids[i], frames + i * bytes, bytes, slot, job.errors[i]);
    if (clock::now() - checked >= std::chrono::nanoseconds(tuning::kSignalCheckNs)) {
      if (interrupted()) {
        result = WaitResult::kInterrupted;
        break;
      }
      checked = clock::now();
    }
  }
  slot.end();
  if (shared) {
    job.next.store(n, std::memory_order_relaxed);  // stopped early: nobody claims another frame
    render_posted_.store(0, std::memory_order_seq_cst);
    // Workers still drawing their last frame (a MuJoCo frame is ~0.1 s on a CPU): short naps.
    for (int spins = 0; render_users_.load(std::memory_order_seq_cst) != 0; ++spins) {
      if (spins < tuning::kRenderWaitYields)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(tuning::kRenderNap);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (job.failed[i]) failures.push_back({ids[i], std::move(job.errors[i])});
  return result;
}

void Pool::notify_waiter() {
  if (waiter_sleeping_.load(std::memory_order_seq_cst)) {
    { std::lock_guard<std::mutex> lock(wait_mu_); }
    wait_cv_.notify_all();
  }
}

double Pool::run_chunk(const int32_t* ids, size_t n) {
  using clock = std::chrono::steady_clock;
  // One clock pair per chunk: it feeds the estimate that steers a sync dispatch's solo choice and
  // the caller's claims, tells an async pool which envs are quick enough for the waiting caller,
  // and tells a waiting caller when to poll Ctrl-C. A sync pool whose only thread is the caller
  // needs it only for the last two and times one chunk in kSampleEvery once steps were timed (a
  // clock pair is ~4% of a 1-env CartPole call); its other chunks count as the estimate says. So
  // does a pool with workers whose call runs on the caller alone (solo: no worker claims, so the
  // caller alone counts; the samples still tell dispatch when batches grew worth sharing).
  // (With guests allowed, a guest may run this too: every chunk is timed and untimed_chunks_,
  // the caller's alone, is left untouched.)
  const bool timed = (participants_ > 1 && !solo_.load(std::memory_order_relaxed)) || !sync() ||
                     assisted_.load(std::memory_order_relaxed) || untimed_chunks_++ % tuning::kSampleEvery == 0 ||
                     step_ns_.load(std::memory_order_relaxed) < 0.0;
  const auto start = timed ? clock::now() : clock::time_point{};
  Outcome out[kMaxChunk];
  if (prepare_)  // an env being prepared finishes that first (a few us at most)
    for (size_t j = 0; j < n; ++j)
      while (stepper_.state(ids[j]).busy.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
  // Only chunks of steps feed the cost estimate: a reset can cost much more or less than a step.
  bool stepped[kMaxChunk];
  bool all_steps = true;
  for (size_t j = 0; j < n; ++j) {
    all_steps &= stepped[j] = stepper_.state(ids[j]).cmd == Command::kStep;  // advance keeps cmd
    out[j] = stepper_.advance(ids[j]);
  }
  double chunk_ns = 0.0;
  if (!sync()) {  // before the rows are published: the caller may send these envs at once
    const double step_ns = chunk_ns = std::chrono::duration<double, std::nano>(clock::now() - start).count();
    record_cost(step_ns / static_cast<double>(n), all_steps);  // sizes the caller's claims
    const bool quick = step_ns < tuning::kQuickBelowNs;
    for (size_t j = 0; j < n; ++j)  // every env of a quick chunk was quick; a reset does not vouch for steps
      if (stepped[j] || !quick) stepper_.state(ids[j]).quick.store(quick, std::memory_order_relaxed);
  }
  // One claim of output indexes and one count per batch for the whole chunk: per-env atomics on
  // lines every thread shares cost more than a small env's step when the cores are far apart.
  const uint64_t bs = static_cast<uint64_t>(opt_.batch_size);
  const uint64_t k0 = ring_.claim(n);
  bool batch_done = false;
  for (size_t j = 0; j < n;) {
    const uint64_t k = k0 + j;
    const size_t rows = static_cast<size_t>(std::min<uint64_t>(n - j, bs - k % bs));  // rows in this batch
    OutputRing::Slot& slot = ring_.slot_of(k);
    std::byte* blk = slot.block.load(std::memory_order_acquire);
    bool failed = false;
    for (size_t r = j; r < j + rows; ++r) {
      stepper_.write_row(ids[r], out[r], blk, sync() ? static_cast<size_t>(ids[r]) : ring_.row_of(k0 + r),
                         obs_target_);
      failed |= stepper_.state(ids[r]).failed;
    }
    if (prepare_)
      for (size_t r = j; r < j + rows; ++r) stepper_.state(ids[r]).busy.store(false, std::memory_order_release);
    batch_done |= ring_.publish(slot, rows, failed);
    j += rows;
  }
  if (sync() && timed) {  // steers the solo choice and the caller's claims
    chunk_ns = std::chrono::duration<double, std::nano>(clock::now() - start).count();
    record_cost(chunk_ns / static_cast<double>(n), all_steps);
  } else if (sync()) {
    chunk_ns = step_ns_.load(std::memory_order_relaxed) * static_cast<double>(n);
  }
  const uint64_t completed = ring_.count_completed(n);
  const uint64_t target = drain_target_.load(std::memory_order_seq_cst);
  if (batch_done || (completed - n < target && completed >= target)) notify_waiter();
  return chunk_ns;
}

void Pool::record_cost(double ns, bool steps_only) {
  const auto fold = [ns](std::atomic<double>& mean) {
    const double m = mean.load(std::memory_order_relaxed);
    mean.store(m < 0.0 ? ns : (1.0 - tuning::kEnvCostWeight) * m + tuning::kEnvCostWeight * ns,
               std::memory_order_relaxed);
  };
  fold(env_ns_);
  if (steps_only) fold(step_ns_);
}

std::byte* Pool::finish_recv(std::vector<EnvFailure>& failures) {
  bool failed = false;
  std::byte* blk = ring_.take(failed);
  const int32_t* ids = layout_.env_id.in(blk);
  for (int r = 0; r < opt_.batch_size; ++r) {
    uint8_t& flight = in_flight_[static_cast<size_t>(ids[r])];
    steps_in_flight_ -= flight == kSteppingFlight;
    flight = 0;
  }
  // Env states are read only when an env of the batch failed (they live on the stepping thread's lines).
  if (failed) {
    for (int r = 0; r < opt_.batch_size; ++r) {
      auto& st = stepper_.state(ids[r]);
      if (st.failed) {
        failures.push_back({ids[r], st.error});
        st.failed = false;
        st.error.clear();
      }
    }
  }
  outstanding_ -= opt_.batch_size;
  // Written only when set (a sync batch, all of whose rows are written by now): an async pool's
  // threads read it while they step other envs.
  if (obs_target_ != nullptr) obs_target_ = nullptr;
  return blk;
}

void Pool::settle() {
  // Workers step until close() stops them (closing only ends waits), so what they hold completes;
  // what nobody holds, this thread steps (a long step gives way once the pool is closing).
  const CancelScope cancel(closing_);
  while (ring_.completed() < sent_total_)
    if (help_once(Helper::kAnyEnv, 0) <= 0.0) std::this_thread::yield();
  obs_target_ = nullptr;
}

void Pool::rebase() {
  // Nothing is in flight: every worker is idle, so counters and slots can be reset directly.
  ring_.rebase();
  sent_total_ = 0;
  outstanding_ = 0;
  steps_in_flight_ = 0;
  std::fill(in_flight_.begin(), in_flight_.end(), 0);
  for (size_t i = 0; i < stepper_.size(); ++i) {
    auto& st = stepper_.state(static_cast<int32_t>(i));
    st.failed = false;
    st.error.clear();
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace envhive
