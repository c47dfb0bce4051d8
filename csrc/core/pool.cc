#include "pool.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace envhive {

namespace {
constexpr size_t kMaxChunk = 64;
}

Pool::Pool(const TaskDef& task, Config config, PoolOptions options, const std::vector<uint64_t>& seeds)
    : spaces_(task.spaces(config)), opt_(options) {
  const int n = opt_.num_envs;
  layout_ = BatchLayout(static_cast<size_t>(opt_.batch_size), spaces_,
                        opt_.autoreset_mode == AutoresetMode::kSameStep);
  // Ring: every batch that can hold an unreceived completion, plus the one being received.
  const size_t ring_size = static_cast<size_t>((n + opt_.batch_size - 1) / opt_.batch_size + 1);
  recycler_ = std::make_shared<BlockRecycler>(layout_.total, ring_size + 4);
  ring_ = std::vector<Slot>(ring_size);
  for (auto& slot : ring_) slot.block.store(recycler_->acquire());

  const auto& act = spaces_.action;
  action_row_bytes_ = act.kind == SpaceSpec::Kind::kDiscrete ? sizeof(int64_t) : act.bytes();
  actions_.assign(static_cast<size_t>(n) * std::max<size_t>(action_row_bytes_, 1), std::byte{0});
  in_flight_.assign(static_cast<size_t>(n), 0);
  env_state_ = std::vector<EnvState>(static_cast<size_t>(n));
  envs_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    envs_.push_back(task.make(config, i));
    if (seeds.empty())
      envs_.back()->seed_from_os();
    else
      envs_.back()->seed(seeds[static_cast<size_t>(i)]);
  }

  // The calling thread is one of the num_threads: it steps envs while it waits. In sync mode
  // that is all it does in the pool. In async mode it runs the caller's Python code between
  // batches, so one of the num_threads is a standby worker that steps while the caller does not
  // (with num_threads == 1 the one thread is a worker and the caller only waits).
  standby_ = !sync() && opt_.num_threads >= 2;
  const int workers = sync() || standby_ ? opt_.num_threads - 1 : opt_.num_threads;
  participants_ = static_cast<size_t>(std::max(1, opt_.num_threads));
  if (sync()) {
    segments_ = std::vector<Segment>(participants_);
    prepare_ = participants_ > 1 && envs_[0]->can_prepare();
    if (prepare_) {
      prepare_lists_ = std::vector<PrepareList>(participants_);
      for (auto& l : prepare_lists_) l.ids.reserve(static_cast<size_t>(n));
    }
  } else {
    lanes_ = std::vector<Lane>(participants_);
    lane_ring_.assign(participants_ * static_cast<size_t>(n), 0);
    lane_seq_.assign(participants_ * static_cast<size_t>(n), 0);
    lane_tail_scratch_.assign(participants_, 0);
  }
  for (int w = 0; w < workers; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
  if (standby_) workers_.emplace_back([this, workers] { standby_loop(workers); });
}

Pool::~Pool() { close(); }

void Pool::close() {
  if (closed_) return;
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(work_mu_);
    stop_.store(true, std::memory_order_seq_cst);
  }
  work_cv_.notify_all();
  {
    std::lock_guard<std::mutex> lock(standby_mu_);
    standby_go_ = true;
  }
  standby_cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
  for (auto& slot : ring_) {
    if (auto* b = slot.block.exchange(nullptr)) recycler_->release(b);
  }
}

void Pool::set_seed(int32_t id, uint64_t seed) {
  auto& st = env_state_[static_cast<size_t>(id)];
  st.seed = seed;
  st.has_seed = true;
}

void Pool::set_reset_option(int32_t id, std::string name, std::vector<double> values) {
  env_state_[static_cast<size_t>(id)].reset_options.emplace_back(std::move(name), std::move(values));
}

void Pool::dispatch(const int32_t* ids, size_t n, const Command* cmds, size_t cmds_n, const std::byte* actions) {
  if (n == 0) return;
  if (sync() && n != static_cast<size_t>(opt_.num_envs))
    throw std::logic_error("a sync pool queues all its envs at once, got " + std::to_string(n));
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = ids[i];
    auto& st = env_state_[static_cast<size_t>(id)];
    const Command cmd = cmds_n == 1 ? cmds[0] : cmds[i];
    st.cmd = cmd;
    if (cmd == Command::kStep && action_row_bytes_ > 0)
      std::memcpy(actions_.data() + static_cast<size_t>(id) * action_row_bytes_, actions + i * action_row_bytes_,
                  action_row_bytes_);
    in_flight_[static_cast<size_t>(id)] = 1;
  }
  const double batch_ns = env_ns_.load(std::memory_order_relaxed) * static_cast<double>(n);
  const bool was_solo = solo_.load(std::memory_order_relaxed);
  bool solo = was_solo;
  if (!sync() || participants_ == 1 || batch_ns < 0.0)
    solo = false;
  else if (batch_ns < kSoloBelowNs)
    solo = true;
  else if (batch_ns > kSharedAboveNs)
    solo = false;
  if (solo != was_solo) solo_.store(solo, std::memory_order_relaxed);  // published with the work below
  const size_t parts = participants_;
  const size_t num = static_cast<size_t>(opt_.num_envs);
  if (sync()) {  // every env, each once (a permutation of the ids): hand out the segments
    call_.store(call_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // published with them
    for (size_t p = 0; p < parts; ++p) {
      const uint64_t front = p * n / parts, back = (p + 1) * n / parts;
      segments_[p].span.store(front | back << 32, std::memory_order_release);
    }
  } else {  // append each env to its lane, in the order sent (a lane never holds an env twice)
    for (size_t p = 0; p < parts; ++p) lane_tail_scratch_[p] = lanes_[p].tail.load(std::memory_order_relaxed);
    const uint64_t seq = queue_tail_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < n; ++i) {
      const size_t lane = lane_of(ids[i]);
      const size_t slot = lane * num + lane_tail_scratch_[lane]++ % num;
      lane_ring_[slot] = ids[i];
      lane_seq_[slot] = seq + i;
    }
    for (size_t p = 0; p < parts; ++p) lanes_[p].tail.store(lane_tail_scratch_[p], std::memory_order_release);
  }
  outstanding_ += static_cast<int>(n);
  sent_total_ += n;
  queue_tail_.store(queue_tail_.load(std::memory_order_relaxed) + n, std::memory_order_seq_cst);
  if (!solo && sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(work_mu_); }
    if (n > 1)
      work_cv_.notify_all();
    else
      work_cv_.notify_one();
  }
}

size_t Pool::claim_sync(int32_t* out, Helper who, size_t self) {
  const bool solo = solo_.load(std::memory_order_relaxed);
  if (solo && who == Helper::kWorker) return 0;
  const size_t parts = segments_.size();
  for (size_t k = 0; k < parts; ++k) {
    const bool own = k == 0;  // own segment from the front, the others' from the back
    auto& span = segments_[(self + k) % parts].span;
    uint64_t v = span.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t front = v & 0xffffffffu, back = v >> 32;
      if (front >= back) break;
      // Half of what is left (all of it when the caller runs the batch alone): the last
      // chunks are single envs, so a thread that finishes early finds something to steal.
      const uint64_t take = std::min<uint64_t>(solo ? back - front : (back - front + 1) / 2, kMaxChunk);
      const uint64_t first = own ? front : back - take;
      const uint64_t next = own ? (front + take) | back << 32 : front | (back - take) << 32;
      if (span.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        for (uint64_t i = 0; i < take; ++i) out[i] = static_cast<int32_t>(first + i);
        queue_head_.fetch_add(take, std::memory_order_acq_rel);  // keeps queue_nonempty() true to its word
        return static_cast<size_t>(take);
      }
    }
  }
  return 0;
}

size_t Pool::claim(int32_t* out, Helper who, size_t self) {
  if (sync()) return claim_sync(out, who, self);
  // Async: the own lane first, then the others', each oldest first -- unless another lane's
  // oldest env was sent more than a lane's length (num_envs / lanes) before the own lane's
  // oldest: then that lane first, so a busy or sleeping lane owner strands nothing and an env is
  // overtaken by at most that many later ones. (Strict order -- a window of one place -- cost
  // half of the lanes' gain: HalfCheetah 8/4 77-80k instead of 79-85k steps/s.)
  const size_t num = static_cast<size_t>(opt_.num_envs);
  const size_t parts = lanes_.size();
  size_t start = self % parts;
  if (parts > 1) {
    const auto oldest = [&](size_t lane) {  // the sequence number of its oldest env, or none
      const uint64_t head = lanes_[lane].head.load(std::memory_order_acquire);
      if (head >= lanes_[lane].tail.load(std::memory_order_acquire)) return UINT64_MAX;
      return lane_seq_[lane * num + head % num];
    };
    const uint64_t window = std::max<uint64_t>(1, num / parts);
    uint64_t own = oldest(start), best = UINT64_MAX;
    for (size_t lane = 0; lane < parts; ++lane) {
      if (lane == self % parts) continue;
      const uint64_t seq = oldest(lane);
      if (seq < best && (own == UINT64_MAX || seq + window < own)) {
        best = seq;
        start = lane;
      }
    }
  }
  const bool overdue = start != self % parts;
  for (size_t k = 0; k < parts; ++k) {
    const size_t lane = (start + k) % parts;
    Lane& l = lanes_[lane];
    const int32_t* ring = lane_ring_.data() + lane * num;
    uint64_t head = l.head.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t tail = l.tail.load(std::memory_order_acquire);
      if (head >= tail) break;
      // Half of what is queued there, so what is left can be stolen.
      size_t take = std::min<size_t>(static_cast<size_t>(tail - head + 1) / 2, kMaxChunk);
      // Read before claiming: once the claim succeeds these slots cannot have been reused.
      for (size_t i = 0; i < take; ++i) out[i] = ring[(head + i) % num];
      if (who == Helper::kQuickEnvs) {  // FIFO: stop at the first env not known quick
        size_t quick = 0;
        while (quick < take && env_state_[static_cast<size_t>(out[quick])].quick.load(std::memory_order_relaxed))
          ++quick;
        if (quick == 0 && k == 0 && overdue) return 0;  // the caller must not overtake it: the standby steps it
        if (quick == 0) break;
        // About kCallerChunkNs of work at most (one env at least): a batch that completes
        // meanwhile waits for the caller's chunk, and its lane's owner may then run dry.
        const double each = env_ns_.load(std::memory_order_relaxed);
        const size_t budget = each > 0.0 ? static_cast<size_t>(kCallerChunkNs / each) : 1;
        take = std::clamp<size_t>(budget, 1, quick);
      }
      if (l.head.compare_exchange_weak(head, head + take, std::memory_order_acq_rel, std::memory_order_acquire)) {
        queue_head_.fetch_add(take, std::memory_order_acq_rel);  // keeps queue_nonempty() true to its word
        return take;
      }
    }
  }
  return 0;
}

bool Pool::help_once(Helper who, size_t self) {
  int32_t ids[kMaxChunk];
  const size_t n = claim(ids, who, self);
  if (n == 0) return false;
  run_chunk(ids, n);
  if (prepare_) {
    PrepareList& list = prepare_lists_[self];
    const uint64_t call = call_.load(std::memory_order_relaxed);
    if (list.call != call) {
      list.ids.clear();
      list.call = call;
    }
    list.ids.insert(list.ids.end(), ids, ids + n);
  }
  return true;
}

bool Pool::prepare_one(size_t self) {
  PrepareList& list = prepare_lists_[self];
  while (!list.ids.empty()) {
    const int32_t id = list.ids.back();
    list.ids.pop_back();
    EnvState& st = env_state_[static_cast<size_t>(id)];
    if (st.busy.exchange(true, std::memory_order_acquire)) continue;  // being stepped again already
    try {
      envs_[static_cast<size_t>(id)]->prepare();
    } catch (...) {  // an error in the env surfaces from its next step, which redoes the work
    }
    st.busy.store(false, std::memory_order_release);
    return true;
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
  using clock = std::chrono::steady_clock;
  while (!stop_.load(std::memory_order_relaxed)) {
    if (help_once(Helper::kWorker, static_cast<size_t>(index) + 1)) {
      // Work is queued and the caller has been away (in Python) for a while: the standby steps.
      if (standby_ && standby_asleep_.load(std::memory_order_relaxed) &&
          !caller_helping_.load(std::memory_order_relaxed) && queue_nonempty() &&
          now_ns() - caller_left_ns_.load(std::memory_order_relaxed) >= kStandbyAfterNs)
        wake_standby();
      continue;
    }
    if (prepare_ && prepare_one(static_cast<size_t>(index) + 1)) continue;
    // Spin briefly: the next batch usually arrives within microseconds, and a futex wake-up
    // costs more than a small env's whole step. Yield while spinning: when the scheduler put
    // this worker on the caller's core, a pure spin would hold the core the caller needs.
    const auto spin_until = clock::now() + std::chrono::microseconds(100);
    bool got_work = false;
    while (clock::now() < spin_until) {
      std::this_thread::yield();
      if (queue_nonempty() || stop_.load(std::memory_order_relaxed)) {
        got_work = true;
        break;
      }
    }
    if (got_work) continue;
    std::unique_lock<std::mutex> lock(work_mu_);
    sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
    work_cv_.wait(lock, [this] { return stop_.load(std::memory_order_seq_cst) || queue_nonempty(); });
    sleeping_workers_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void Pool::standby_loop(int index) {
  pin_thread(index);
  while (!stop_.load(std::memory_order_relaxed)) {
    // Lane 0 first: the standby stands in for the caller.
    if (!caller_helping_.load(std::memory_order_seq_cst) && help_once(Helper::kWorker, 0)) continue;
    // Nothing to step, or the caller steps: sleep until the caller or a worker hands over. With
    // work queued and the caller away, look again every millisecond (a wake-up can race ahead).
    std::unique_lock<std::mutex> lock(standby_mu_);
    standby_asleep_.store(true, std::memory_order_seq_cst);
    const auto ready = [this] { return standby_go_ || stop_.load(std::memory_order_seq_cst); };
    if (!caller_helping_.load(std::memory_order_seq_cst) && queue_nonempty())
      standby_cv_.wait_for(lock, std::chrono::milliseconds(1), ready);
    else
      standby_cv_.wait(lock, ready);
    standby_go_ = false;
    standby_asleep_.store(false, std::memory_order_relaxed);
  }
}

void Pool::wake_standby() {
  if (!standby_asleep_.load(std::memory_order_seq_cst)) return;
  {
    std::lock_guard<std::mutex> lock(standby_mu_);
    standby_go_ = true;
  }
  standby_cv_.notify_one();
}

void Pool::notify_waiter() {
  if (waiter_sleeping_.load(std::memory_order_seq_cst)) {
    { std::lock_guard<std::mutex> lock(wait_mu_); }
    wait_cv_.notify_all();
  }
}

Pool::Outcome Pool::advance(int32_t id) {
  const size_t i = static_cast<size_t>(id);
  Env& env = *envs_[i];
  EnvState& st = env_state_[i];
  Outcome out;
  Command cmd = st.cmd;
  // NEXT_STEP: the step after an episode ends resets instead, ignoring its action. An env that
  // threw restarts the same way in SAME_STEP too (DISABLED leaves it to the caller's reset_mask).
  if (cmd == Command::kStep && st.needs_reset &&
      (opt_.autoreset_mode == AutoresetMode::kNextStep ||
       (st.restart && opt_.autoreset_mode == AutoresetMode::kSameStep)))
    cmd = Command::kReset;
  try {
    switch (cmd) {
      case Command::kReset:
        if (st.has_seed) {
          env.seed(st.seed);
          st.has_seed = false;
        }
        if (!st.reset_options.empty()) {
          auto options = std::move(st.reset_options);
          st.reset_options.clear();
          for (const auto& [name, values] : options) env.set_reset_option(name, values);
        }
        env.reset();
        if (!env.reset_continued_game()) st.elapsed = 0;
        st.needs_reset = false;
        st.restart = false;
        break;
      case Command::kEmit:
        break;
      case Command::kStep: {
        const StepResult r = env.step(actions_.data() + i * action_row_bytes_);
        ++st.elapsed;
        out.reward = r.reward;
        out.terminated = r.terminated;
        out.truncated = opt_.max_episode_steps > 0 && st.elapsed >= opt_.max_episode_steps;
        out.ended = out.terminated || out.truncated;
        st.needs_reset = out.ended;
        break;
      }
    }
  } catch (const std::exception& e) {
    st.failed = true;
    st.error = e.what();
    st.needs_reset = st.restart = true;
    out.ended = false;
#if defined(__GLIBCXX__)
  } catch (abi::__forced_unwind&) {
    throw;  // thread cancellation (e.g. at interpreter exit) must unwind, not be reported
#endif
  } catch (...) {
    st.failed = true;
    st.error = "unknown C++ exception";
    st.needs_reset = st.restart = true;
    out.ended = false;
  }
  return out;
}

void Pool::write_row(int32_t id, const Outcome& out, std::byte* blk, size_t row) {
  const size_t i = static_cast<size_t>(id);
  Env& env = *envs_[i];
  EnvState& st = env_state_[i];
  const auto& L = layout_;
  const auto& infos = spaces_.infos;
  void* info_dst[32];

  auto write_state = [&](size_t obs_off, size_t elapsed_off, const std::vector<size_t>& info_offs) {
    env.write_obs(blk + obs_off + row * L.obs_row_bytes);
    reinterpret_cast<int32_t*>(blk + elapsed_off)[row] = static_cast<int32_t>(st.elapsed);
    for (size_t f = 0; f < infos.size() && f < 32; ++f) info_dst[f] = blk + info_offs[f] + row * infos[f].bytes();
    if (!infos.empty()) env.write_info(info_dst);
  };
  if (st.failed) {
    std::memset(blk + L.obs + row * L.obs_row_bytes, 0, L.obs_row_bytes);
    reinterpret_cast<int32_t*>(blk + L.elapsed_step)[row] = static_cast<int32_t>(st.elapsed);
    for (size_t f = 0; f < infos.size(); ++f) std::memset(blk + L.infos[f] + row * infos[f].bytes(), 0, infos[f].bytes());
  } else {
    if (opt_.autoreset_mode == AutoresetMode::kSameStep) {
      reinterpret_cast<bool*>(blk + L.final_mask)[row] = out.ended;
      if (out.ended) {
        // SAME_STEP: keep the terminal observation and info, then start the next episode now.
        write_state(L.final_obs, L.final_elapsed_step, L.final_infos);
        try {
          env.reset();
          if (!env.reset_continued_game()) st.elapsed = 0;
          st.needs_reset = false;
        } catch (const std::exception& e) {
          st.failed = true;
          st.error = e.what();
          st.needs_reset = st.restart = true;
        }
      }
    }
    write_state(L.obs, L.elapsed_step, L.infos);
  }
  reinterpret_cast<double*>(blk + L.reward)[row] = out.reward;
  reinterpret_cast<bool*>(blk + L.terminated)[row] = out.terminated;
  reinterpret_cast<bool*>(blk + L.truncated)[row] = out.truncated;
  reinterpret_cast<int32_t*>(blk + L.env_id)[row] = id;
}

void Pool::run_chunk(const int32_t* ids, size_t n) {
  using clock = std::chrono::steady_clock;
  // One clock pair per chunk: in sync pools it feeds the estimate that steers dispatch's solo
  // choice, in async pools it tells which envs are quick enough for the waiting caller.
  const bool timed = !sync() || participants_ > 1;
  const auto start = timed ? clock::now() : clock::time_point{};
  bool stepped[kMaxChunk];  // async: which envs run a step (not a reset), for their quick flags
  if (!sync())
    for (size_t j = 0; j < n; ++j) stepped[j] = env_state_[static_cast<size_t>(ids[j])].cmd == Command::kStep;
  Outcome out[kMaxChunk];
  if (prepare_)  // an env being prepared finishes that first (a few us at most)
    for (size_t j = 0; j < n; ++j)
      while (env_state_[static_cast<size_t>(ids[j])].busy.exchange(true, std::memory_order_acquire))
        std::this_thread::yield();
  for (size_t j = 0; j < n; ++j) out[j] = advance(ids[j]);
  if (timed && !sync()) {  // before the rows are published: the caller may send these envs at once
    const double chunk_ns = std::chrono::duration<double, std::nano>(clock::now() - start).count();
    record_env_ns(chunk_ns / static_cast<double>(n));  // sizes the caller's claims
    const bool quick = chunk_ns < kQuickBelowNs;
    for (size_t j = 0; j < n; ++j)  // every env of a quick chunk was quick; a reset does not vouch for steps
      if (stepped[j] || !quick) env_state_[static_cast<size_t>(ids[j])].quick.store(quick, std::memory_order_relaxed);
  }
  // One claim of output indexes and one count per batch for the whole chunk: per-env atomics on
  // lines every thread shares cost more than a small env's step when the cores are far apart.
  const uint64_t bs = static_cast<uint64_t>(opt_.batch_size);
  const uint64_t k0 = slot_counter_.fetch_add(n, std::memory_order_relaxed);
  bool batch_done = false;
  for (size_t j = 0; j < n;) {
    const uint64_t k = k0 + j;
    const size_t rows = static_cast<size_t>(std::min<uint64_t>(n - j, bs - k % bs));  // rows in this batch
    Slot& slot = ring_[(k / bs) % ring_.size()];
    std::byte* blk = slot.block.load(std::memory_order_acquire);
    bool failed = false;
    for (size_t r = j; r < j + rows; ++r) {
      write_row(ids[r], out[r], blk, sync() ? static_cast<size_t>(ids[r]) : static_cast<size_t>((k0 + r) % bs));
      failed |= env_state_[static_cast<size_t>(ids[r])].failed;
    }
    if (prepare_)
      for (size_t r = j; r < j + rows; ++r) env_state_[static_cast<size_t>(ids[r])].busy.store(false, std::memory_order_release);
    if (failed) slot.failed.store(true, std::memory_order_relaxed);  // published by the add below
    const int done = slot.finished.fetch_add(static_cast<int>(rows), std::memory_order_seq_cst) + static_cast<int>(rows);
    batch_done |= done == opt_.batch_size;
    j += rows;
  }
  if (timed && sync())  // steers dispatch's solo choice
    record_env_ns(std::chrono::duration<double, std::nano>(clock::now() - start).count() / static_cast<double>(n));
  const uint64_t completed = completed_total_.fetch_add(n, std::memory_order_seq_cst) + n;
  const uint64_t target = drain_target_.load(std::memory_order_seq_cst);
  if (batch_done || (completed - n < target && completed >= target)) notify_waiter();
}

void Pool::record_env_ns(double ns) {
  // A running mean; the races between threads are benign (it only steers heuristics).
  const double mean = env_ns_.load(std::memory_order_relaxed);
  env_ns_.store(mean < 0.0 ? ns : 0.9 * mean + 0.1 * ns, std::memory_order_relaxed);
}

std::byte* Pool::finish_recv(std::vector<EnvFailure>& failures) {
  Slot& slot = ring_[recv_count_ % ring_.size()];
  std::byte* blk = slot.block.load(std::memory_order_acquire);
  const int32_t* ids = reinterpret_cast<const int32_t*>(blk + layout_.env_id);
  for (int r = 0; r < opt_.batch_size; ++r) in_flight_[static_cast<size_t>(ids[r])] = 0;
  // Env states are read only when an env of the batch failed (they live on the stepping thread's lines).
  if (slot.failed.exchange(false, std::memory_order_relaxed)) {
    for (int r = 0; r < opt_.batch_size; ++r) {
      auto& st = env_state_[static_cast<size_t>(ids[r])];
      if (st.failed) {
        failures.push_back({ids[r], st.error});
        st.failed = false;
        st.error.clear();
      }
    }
  }
  outstanding_ -= opt_.batch_size;
  // Hand the block over and put a fresh one in its place for the batch ring_.size() ahead.
  slot.finished.store(0, std::memory_order_relaxed);
  slot.block.store(recycler_->acquire(), std::memory_order_release);
  ++recv_count_;
  return blk;
}

void Pool::rebase() {
  // Nothing is in flight: every worker is idle, so counters and slots can be reset directly.
  for (auto& slot : ring_) {
    slot.finished.store(0, std::memory_order_relaxed);
    slot.failed.store(false, std::memory_order_relaxed);
  }
  slot_counter_.store(0, std::memory_order_relaxed);
  completed_total_.store(0, std::memory_order_relaxed);
  sent_total_ = 0;
  recv_count_ = 0;
  outstanding_ = 0;
  std::fill(in_flight_.begin(), in_flight_.end(), 0);
  for (auto& st : env_state_) {
    st.failed = false;
    st.error.clear();
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace envhive
