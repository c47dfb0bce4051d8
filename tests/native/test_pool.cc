// Scheduling invariants of the pool, checked on a probe task that counts what happens to it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "check.h"
#include "core/pool.h"

namespace envhive {
namespace {

// What every ProbeEnv of a test reports to: global, reset by each test through probe_reset().
struct ProbeLog {
  std::atomic<int64_t> steps{0};
  std::atomic<int64_t> prepares{0};
  std::atomic<int> concurrent{0};      // envs being stepped right now, across the pool
  std::atomic<int> max_concurrent{0};
  std::atomic<double> extra_us{0.0};   // busy-wait added to every step (a cost that changes mid-test)
  std::mutex threads_mu;
  std::set<std::thread::id> threads;  // the threads that stepped an env (since probe_reset)
};
ProbeLog g_log;

void probe_reset_threads() {
  std::lock_guard<std::mutex> lock(g_log.threads_mu);
  g_log.threads.clear();
}

void probe_reset() {
  g_log.steps = 0;
  g_log.prepares = 0;
  g_log.concurrent = 0;
  g_log.max_concurrent = 0;
  g_log.extra_us = 0.0;
  probe_reset_threads();
}

std::set<std::thread::id> probe_threads() {
  std::lock_guard<std::mutex> lock(g_log.threads_mu);
  return g_log.threads;
}

// obs = [env id, steps since reset, last action]; reward = action; info "resets" = resets so far.
class ProbeEnv final : public Env {
 public:
  static std::vector<ConfigField> config() {
    return {{"slow_env", int64_t{-1}, "env id whose steps take slow_us"},
            {"slow_us", 0.0, "busy-wait of slow_env's steps"},
            {"every_us", 0.0, "busy-wait of every env's steps"},
            {"fail_env", int64_t{-1}, "env id that throws at fail_step"},
            {"fail_step", int64_t{-1}, "episode step at which fail_env throws"},
            {"fail_reset_env", int64_t{-1}, "env id whose resets after the first throw"},
            {"throw_int", false, "throw an int instead of a std::exception"},
            {"episode_length", int64_t{0}, "terminate after this many steps (0: never)"},
            {"prepare", false, "opt into Env::prepare"}};
  }
  static Spaces spaces(const Config&) {
    return {SpaceSpec::box(DType::kFloat64, {3}, {-1.0}, {1e12}), SpaceSpec::discrete(4),
            {InfoSpec{"resets", DType::kInt64, {}}}};
  }
  ProbeEnv(const Config& c, int env_id)
      : id_(env_id),
        slow_us_(c.integer("slow_env") == env_id ? c.real("slow_us") : c.real("every_us")),
        fail_(c.integer("fail_env") == env_id),
        fail_step_(c.integer("fail_step")),
        fail_reset_(c.integer("fail_reset_env") == env_id),
        throw_int_(c.flag("throw_int")),
        episode_length_(c.integer("episode_length")),
        prepare_(c.flag("prepare")) {}

  void reset() override {
    if (fail_reset_ && resets_ > 0) fail();
    ++resets_;
    steps_ = 0;
    last_ = -1;
    prepared_ = false;
  }
  StepResult step(const void* action) override {
    const int now = g_log.concurrent.fetch_add(1) + 1;
    int seen = g_log.max_concurrent.load();
    while (now > seen && !g_log.max_concurrent.compare_exchange_weak(seen, now)) {
    }
    if (const double us = slow_us_ + g_log.extra_us.load(); us > 0.0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    {
      std::lock_guard<std::mutex> lock(g_log.threads_mu);
      g_log.threads.insert(std::this_thread::get_id());
    }
    std::memcpy(&last_, action, sizeof(last_));
    ++steps_;
    prepared_ = false;
    g_log.steps.fetch_add(1);
    g_log.concurrent.fetch_sub(1);
    if (fail_ && steps_ == fail_step_) fail();
    return {static_cast<double>(last_), episode_length_ > 0 && steps_ >= episode_length_};
  }
  void write_obs(void* dst) const override {
    double* o = static_cast<double*>(dst);
    o[0] = id_;
    o[1] = static_cast<double>(steps_);
    o[2] = static_cast<double>(last_);
  }
  void write_info(void* const* dst) const override { std::memcpy(dst[0], &resets_, sizeof(resets_)); }
  bool can_prepare() const override { return prepare_; }
  void prepare() override {
    if (!prepared_) g_log.prepares.fetch_add(1);
    prepared_ = true;
  }

 private:
  [[noreturn]] void fail() const {
    if (throw_int_) throw 7;
    throw std::runtime_error("probe failure of env " + std::to_string(id_));
  }
  int id_;
  double slow_us_;
  bool fail_;
  int64_t fail_step_;
  bool fail_reset_, throw_int_;
  int64_t episode_length_;
  bool prepare_;
  int64_t resets_ = 0, steps_ = 0, last_ = -1;
  bool prepared_ = false;
};

const TaskDef& probe_task() {
  static const TaskDef def = make_task_def<ProbeEnv>({.id = "Probe-v0", .family = "testing", .doc = "probe"});
  return def;
}

struct PoolUnderTest {
  std::unique_ptr<Pool> pool;
  std::vector<std::byte*> held;  // blocks taken and not yet released

  PoolUnderTest(int num_envs, int batch_size, int threads, std::map<std::string, ConfigValue> config = {},
                AutoresetMode mode = AutoresetMode::kNextStep, int64_t max_steps = 0) {
    PoolOptions o;
    o.num_envs = num_envs;
    o.batch_size = batch_size;
    o.num_threads = threads;
    o.autoreset_mode = mode;
    o.max_episode_steps = max_steps;
    std::vector<uint64_t> seeds;
    for (int i = 0; i < num_envs; ++i) seeds.push_back(static_cast<uint64_t>(i));
    pool = std::make_unique<Pool>(probe_task(), probe_task().resolve_config(config), o, seeds);
  }
  ~PoolUnderTest() {
    for (auto* b : held) pool->recycler()->release(b);
  }
  const BatchLayout& L() const { return pool->layout(); }

  void send(const std::vector<int32_t>& ids, Command cmd = Command::kStep, int64_t action = 1) {
    std::vector<int64_t> actions(ids.size(), action);
    pool->dispatch(ids.data(), ids.size(), &cmd, 1, reinterpret_cast<const std::byte*>(actions.data()));
  }
  void send_all(Command cmd = Command::kStep, int64_t action = 1) {
    std::vector<int32_t> ids;
    for (int i = 0; i < pool->options().num_envs; ++i) ids.push_back(i);
    send(ids, cmd, action);
  }
  // Waits for and takes the next batch; the block stays held until release().
  std::byte* recv(std::vector<EnvFailure>* failures = nullptr) {
    const WaitResult r = pool->wait_batch(std::nullopt, [] { return false; });
    CHECK(r == WaitResult::kReady);
    std::vector<EnvFailure> f;
    std::byte* blk = pool->finish_recv(f);
    if (failures) *failures = f;
    held.push_back(blk);
    return blk;
  }
  void release() {
    for (auto* b : held) pool->recycler()->release(b);
    held.clear();
  }
  const int32_t* ids(const std::byte* blk) const { return L().env_id.in(blk); }
  const double* obs(const std::byte* blk, size_t row) const {
    return reinterpret_cast<const double*>(L().obs[0].in(blk) + row * L().obs[0].row_bytes);
  }
};

// Sync pools: each call steps every env exactly once, and row i is env i.
TEST(sync_calls_step_every_env_exactly_once) {
  for (int threads : {1, 2, 3, 4}) {
    for (int n : {1, 2, 3, 7, 64, 100, 257}) {
      probe_reset();
      PoolUnderTest t(n, n, threads);
      t.send_all(Command::kReset);
      t.recv();
      for (int call = 1; call <= 20; ++call) {
        t.send_all();
        const std::byte* blk = t.recv();
        for (int i = 0; i < n; ++i) {
          CHECK_EQ(t.ids(blk)[i], i);
          CHECK_EQ(t.obs(blk, static_cast<size_t>(i))[0], static_cast<double>(i));
          CHECK_EQ(t.obs(blk, static_cast<size_t>(i))[1], static_cast<double>(call));  // stepped once per call
        }
        t.release();
      }
      CHECK_EQ(g_log.steps.load(), int64_t{20} * n);
      CHECK(g_log.max_concurrent.load() <= std::min(threads, n));
    }
  }
}

// Prepared steps (Env::prepare) never overlap a step and never change what a call returns.
TEST(prepared_sync_pools_step_every_env_once) {
  probe_reset();
  const int n = 16;
  PoolUnderTest t(n, n, 2, {{"prepare", true}});
  t.send_all(Command::kReset);
  t.recv();
  for (int call = 1; call <= 200; ++call) {
    t.send_all();
    const std::byte* blk = t.recv();
    for (int i = 0; i < n; ++i) CHECK_EQ(t.obs(blk, static_cast<size_t>(i))[1], static_cast<double>(call));
    t.release();
  }
  CHECK_EQ(g_log.steps.load(), int64_t{200} * n);
}

// Guests (Pool::assist, a vmapped XLA call's other threads) step envs of a sync call alongside
// its caller: every env still exactly once per call, row i still env i, and the envs really run
// on more threads than the pool has. Without set_assisted a guest finds nothing to do.
TEST(guests_step_envs_of_a_sync_call_once) {
  for (int threads : {1, 2}) {
    for (int n : {1, 5, 16}) {
      probe_reset();
      PoolUnderTest t(n, n, threads, {{"every_us", 200.0}});
      t.send_all(Command::kReset);
      t.recv();
      t.release();
      int guest_calls = 0;
      for (int call = 1; call <= 12; ++call) {
        const bool assisted = call > 2;  // the first calls: guests come but are not let in
        t.pool->set_assisted(assisted);
        const int64_t steps_before = g_log.steps.load();
        t.send_all();
        std::atomic<bool> over{false};
        std::atomic<int> stepped{0};
        std::vector<std::thread> guests;
        if (assisted) probe_reset_threads();
        for (int g = 0; g < 2; ++g)
          guests.emplace_back([&] {
            while (!over.load()) {
              if (t.pool->assist()) stepped.fetch_add(1);
              std::this_thread::yield();
            }
          });
        std::set<std::thread::id> allowed{std::this_thread::get_id()};
        for (auto& g : guests) allowed.insert(g.get_id());
        // Let a guest start first (on a loaded machine its thread may get a core only after the
        // caller stepped everything): the caller waits until some env is being stepped.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (assisted && g_log.concurrent.load() == 0 && g_log.steps.load() == steps_before &&
               std::chrono::steady_clock::now() < deadline)
          std::this_thread::yield();
        const std::byte* blk = t.recv();
        over = true;
        for (auto& g : guests) g.join();
        for (int i = 0; i < n; ++i) {
          CHECK_EQ(t.ids(blk)[i], i);
          CHECK_EQ(t.obs(blk, static_cast<size_t>(i))[1], static_cast<double>(call));
        }
        if (!assisted) CHECK_EQ(stepped.load(), 0);
        if (assisted)  // the pool's own workers sat the call out: only the caller and the guests stepped
          for (const auto& id : probe_threads()) CHECK(allowed.count(id) == 1);
        guest_calls += stepped.load() > 0;
        t.release();
      }
      CHECK_EQ(g_log.steps.load(), int64_t{12} * n);
      // A 1-thread pool of 16 envs of 200 us: a guest always finds envs (the caller waited for one
      // to start, and takes half of what is left at a time). (2-thread pools: asserted above that
      // only the caller and the guests step; who steps how much is not.)
      if (n == 16 && threads == 1) {
        CHECK(guest_calls > 0);
        CHECK(g_log.max_concurrent.load() > threads);
      }
      CHECK(g_log.max_concurrent.load() <= std::min(threads + 2, n));
    }
  }
}

// A pool with workers runs batches cheaper than a hand-off on the caller alone (solo), timing
// only a sample of them; once its envs grow slow, the samples still show it and the workers
// step again.
TEST(solo_pools_share_again_once_their_envs_grow_slow) {
  probe_reset();
  const int n = 16;
  PoolUnderTest t(n, n, 2);
  t.send_all(Command::kReset);
  t.recv();
  t.release();
  for (int call = 0; call < 100; ++call) {  // cheap steps: a batch of ~2 us, well under kSoloBelowNs
    t.send_all();
    t.recv();
    t.release();
  }
  g_log.extra_us = 300.0;  // now ~5 ms a batch, far above kSharedAboveNs
  g_log.max_concurrent = 0;
  int calls = 0;
  for (; calls < 4 * static_cast<int>(tuning::kSampleEvery) && g_log.max_concurrent.load() < 2; ++calls) {
    t.send_all();
    const std::byte* blk = t.recv();
    for (int i = 0; i < n; ++i) CHECK_EQ(t.obs(blk, static_cast<size_t>(i))[1], static_cast<double>(101 + calls));
    t.release();
  }
  CHECK_EQ(g_log.max_concurrent.load(), 2);  // both threads stepped envs of one call
}

// Async pools: every env sent is returned exactly once, in some batch, before it is sent again.
TEST(async_rounds_return_each_sent_env_once) {
  for (int threads : {1, 2, 3}) {
    for (auto [n, b] : {std::pair{8, 4}, std::pair{9, 2}, std::pair{64, 32}, std::pair{5, 1}}) {
      probe_reset();
      PoolUnderTest t(n, b, threads);
      std::vector<int> sent(static_cast<size_t>(n), 0), received(static_cast<size_t>(n), 0);
      t.send_all(Command::kReset);
      for (int round = 0; round < 300; ++round) {
        const std::byte* blk = t.recv();
        std::vector<int32_t> ids(t.ids(blk), t.ids(blk) + b);
        std::set<int32_t> unique(ids.begin(), ids.end());
        CHECK_EQ(unique.size(), static_cast<size_t>(b));
        for (int r = 0; r < b; ++r) {
          const int32_t id = ids[static_cast<size_t>(r)];
          CHECK_EQ(t.obs(blk, static_cast<size_t>(r))[0], static_cast<double>(id));
          CHECK_EQ(t.obs(blk, static_cast<size_t>(r))[1], static_cast<double>(sent[static_cast<size_t>(id)]));
          ++received[static_cast<size_t>(id)];
          CHECK(!t.pool->in_flight(id));
        }
        t.release();
        t.send(ids);
        for (int32_t id : ids) ++sent[static_cast<size_t>(id)];
      }
      for (int i = 0; i < n; ++i) CHECK(received[static_cast<size_t>(i)] <= sent[static_cast<size_t>(i)] + 1);
    }
  }
}

// A block Python holds is never written again: hold every block taken over many rounds, then
// check each still holds what it held when it was taken.
TEST(ring_never_rewrites_a_taken_block) {
  for (auto [n, b, threads] : {std::tuple{8, 2, 2}, std::tuple{16, 16, 2}, std::tuple{12, 5, 3}}) {
    PoolUnderTest t(n, b, threads);
    std::vector<std::vector<std::byte>> snapshots;
    const size_t bytes = t.L().total;
    t.send_all(Command::kReset);
    for (int round = 0; round < 200; ++round) {
      const std::byte* blk = t.recv();
      snapshots.emplace_back(blk, blk + bytes);
      std::vector<int32_t> ids(t.ids(blk), t.ids(blk) + b);
      t.send(ids);
    }
    for (size_t k = 0; k < t.held.size(); ++k) CHECK(std::memcmp(t.held[k], snapshots[k].data(), bytes) == 0);
    // Drain, so the pool is idle before the blocks go back.
    CHECK(t.pool->drain([] { return false; }) == WaitResult::kReady);
  }
}

// First-N-ready: a slow env does not hold back a batch the others complete.
TEST(async_batches_come_in_completion_order) {
  for (int threads : {2, 3}) {  // one thread steps env 0 first in any order: nothing to overtake it
    const int n = 8, b = 4;
    PoolUnderTest t(n, b, threads, {{"slow_env", int64_t{0}}, {"slow_us", 300'000.0}});
    t.send_all(Command::kReset);
    for (int k = 0; k < n / b; ++k) {
      t.recv();
      t.release();
    }
    t.send_all();
    const std::byte* first = t.recv();
    for (int r = 0; r < b; ++r) CHECK(t.ids(first)[r] != 0);
    t.release();
    const std::byte* second = t.recv();
    bool has_slow = false;
    for (int r = 0; r < b; ++r) has_slow |= t.ids(second)[r] == 0;
    CHECK(has_slow);
    t.release();
  }
}

// Every exception type an env throws becomes a failure with its env id; the pool stays usable.
TEST(failures_of_any_type_reach_the_caller_with_env_id) {
  for (bool throw_int : {false, true}) {
    for (int threads : {1, 2}) {
      PoolUnderTest t(4, 4, threads, {{"fail_env", int64_t{2}}, {"fail_step", int64_t{3}}, {"throw_int", throw_int}});
      t.send_all(Command::kReset);
      t.recv();
      for (int step = 1; step <= 2; ++step) {
        t.send_all();
        std::vector<EnvFailure> f;
        t.recv(&f);
        CHECK(f.empty());
      }
      t.send_all();
      std::vector<EnvFailure> f;
      t.recv(&f);
      CHECK_EQ(f.size(), size_t{1});
      CHECK_EQ(f[0].env_id, 2);
      CHECK(f[0].message.find(throw_int ? "not a std::exception" : "probe failure of env 2") != std::string::npos);
      // The failed env restarts on its next step; the others carry on.
      t.send_all();
      const std::byte* blk = t.recv(&f);
      CHECK(f.empty());
      CHECK_EQ(t.obs(blk, 2)[1], 0.0);  // a reset (NEXT_STEP restart)
      CHECK_EQ(t.obs(blk, 1)[1], 4.0);
      t.release();
    }
  }
}

// SAME_STEP resets inside the step that ended the episode; a failure there is reported too.
TEST(same_step_reset_failure_is_reported) {
  PoolUnderTest t(3, 3, 2, {{"fail_reset_env", int64_t{1}}, {"episode_length", int64_t{2}}},
                  AutoresetMode::kSameStep);
  t.send_all(Command::kReset);
  t.recv();
  t.send_all();
  std::vector<EnvFailure> f;
  t.recv(&f);
  CHECK(f.empty());
  t.send_all();  // the episode ends: env 1's same-step reset throws
  const std::byte* blk = t.recv(&f);
  CHECK_EQ(f.size(), size_t{1});
  CHECK_EQ(f[0].env_id, 1);
  CHECK(!t.L().final_mask.in(blk)[1]);
  CHECK(t.L().final_mask.in(blk)[0]);
  t.release();
}

// Ctrl-C: a waiting caller that steps envs polls `interrupted` after each slow env.
TEST(interrupt_returns_within_one_slow_env) {
  probe_reset();
  PoolUnderTest t(4, 4, 1, {{"slow_env", int64_t{0}}, {"slow_us", 150'000.0}});
  t.send_all(Command::kReset);
  t.recv();
  t.release();
  // The caller's cost estimate is unknown (resets do not count), so it claims one env at a time
  // and polls right after the slow one.
  t.send_all();
  int polls = 0;
  const WaitResult r = t.pool->wait_batch(std::nullopt, [&] { return ++polls >= 1; });
  CHECK(r == WaitResult::kInterrupted);
  CHECK_EQ(g_log.steps.load(), int64_t{1});  // it returned right after its current env
  CHECK(t.pool->drain([] { return false; }) == WaitResult::kReady);
}

// request_close from another thread ends a wait; close then stops the threads.
TEST(request_close_ends_a_wait) {
  for (int threads : {1, 2}) {
    PoolUnderTest t(4, 2, threads, {{"slow_env", int64_t{0}}, {"slow_us", 200'000.0}});
    t.send_all(Command::kReset);
    t.recv();
    t.recv();
    t.release();
    t.send({0});
    t.send({1});  // only env 0 is slow; batch 0 = {1, ...} needs a second env: it waits on env 0
    std::thread closer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      t.pool->request_close();
    });
    std::vector<int32_t> none;
    const WaitResult r = t.pool->wait_batch(std::nullopt, [] { return false; });
    closer.join();
    CHECK(r == WaitResult::kClosed);  // env 0 takes 200 ms, the close comes after 20
    t.release();
    t.pool->close();
    CHECK(t.pool->closed());
  }
}

// set_obs_target: a sync batch's observations go to the caller's buffer (row = env id), for that
// batch only; the block still carries everything else.
TEST(an_obs_target_takes_one_sync_batch_s_observations) {
  for (int threads : {1, 2, 3}) {
    probe_reset();
    const int n = 7;
    PoolUnderTest t(n, n, threads);
    t.send_all(Command::kReset);
    t.recv();
    t.release();
    const size_t row = t.L().obs[0].row_bytes / sizeof(double);
    for (int call = 1; call <= 6; ++call) {
      const bool target = call % 2 == 1;
      std::vector<double> buf(static_cast<size_t>(n) * row, -7.0);
      if (target) t.pool->set_obs_target(reinterpret_cast<std::byte*>(buf.data()));
      t.send_all(Command::kStep, call % 4);
      const std::byte* blk = t.recv();
      for (int i = 0; i < n; ++i) {
        CHECK_EQ(t.ids(blk)[i], i);
        CHECK_EQ(t.L().reward.in(blk)[i], static_cast<double>(call % 4));
        const double* obs = target ? buf.data() + static_cast<size_t>(i) * row : t.obs(blk, static_cast<size_t>(i));
        CHECK_EQ(obs[0], static_cast<double>(i));
        CHECK_EQ(obs[1], static_cast<double>(call));
        CHECK_EQ(obs[2], static_cast<double>(call % 4));
        if (!target) CHECK_EQ(buf[static_cast<size_t>(i) * row], -7.0);  // the last target is forgotten
      }
      t.release();
    }
  }
}

// After a wait that request_close ended, settle() completes every env in flight (this thread
// steps what nobody holds, and waits for what the pool's threads hold), so the target is written
// in full and no thread touches it once settle returns.
TEST(settle_completes_the_envs_in_flight_after_a_closed_wait) {
  for (int threads : {1, 2, 3}) {
    probe_reset();
    const int n = 6;
    PoolUnderTest t(n, n, threads, {{"every_us", 30'000.0}});
    t.send_all(Command::kReset);
    t.recv();
    t.release();
    const size_t row = t.L().obs[0].row_bytes / sizeof(double);
    std::vector<double> buf(static_cast<size_t>(n) * row, -7.0);
    t.pool->set_obs_target(reinterpret_cast<std::byte*>(buf.data()));
    t.send_all();
    std::thread closer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      t.pool->request_close();
    });
    const WaitResult r = t.pool->wait_batch(std::nullopt, [] { return false; });
    closer.join();
    CHECK(r == WaitResult::kClosed);  // 6 x 30 ms of steps on at most 3 threads: not done at 10 ms
    t.pool->settle();
    CHECK_EQ(g_log.steps.load(), int64_t{n});  // every env stepped, once
    CHECK_EQ(g_log.concurrent.load(), 0);      // and none is being stepped now
    for (int i = 0; i < n; ++i) {
      CHECK_EQ(buf[static_cast<size_t>(i) * row], static_cast<double>(i));
      CHECK_EQ(buf[static_cast<size_t>(i) * row + 1], 1.0);
    }
    t.pool->close();
  }
}

// Envs never reset are counted, so the bindings can refuse to step them.
TEST(never_reset_envs_are_tracked) {
  PoolUnderTest t(3, 1, 1);
  CHECK_EQ(t.pool->never_reset(), 3);
  t.send({1}, Command::kReset);
  CHECK_EQ(t.pool->never_reset(), 2);
  CHECK(t.pool->was_reset(1) && !t.pool->was_reset(0));
  t.recv();
}

TEST(options_are_checked_before_allocating) {
  PoolOptions o;
  o.num_envs = kMaxNumEnvs + 1;
  o.batch_size = 1;
  CHECK_THROWS(Pool(probe_task(), probe_task().resolve_config({}), o, {}), "num_envs must be in");
  o.num_envs = 4;
  o.batch_size = 5;
  CHECK_THROWS(Pool(probe_task(), probe_task().resolve_config({}), o, {}), "batch_size");
  o.batch_size = 4;
  CHECK_THROWS(Pool(probe_task(), probe_task().resolve_config({}), o, {1, 2}), "one entry per env");
}

}  // namespace
}  // namespace envhive
