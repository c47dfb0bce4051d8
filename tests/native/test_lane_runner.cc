// LaneRunner (xla/lane_runner.h): the lanes of a batched XLA call run in parallel, each exactly once,
// and the call returns only when all of them have.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "xla/lane_runner.h"

namespace envhive {
namespace {

using xla::LaneRunner;
using Clock = std::chrono::steady_clock;

// Two calls of lanes of 300 us each: after the first, the running mean says lanes are worth
// sharing, so the second shares them (and sharing() says so).
void slow_lanes(LaneRunner& runner, size_t n) {
  for (int call = 0; call < 2; ++call)
    runner.run(n, [](size_t) { std::this_thread::sleep_for(std::chrono::microseconds(300)); });
}

// Each of `n` lanes arrives, then waits (up to 5 s) for all n to have arrived: they all see n only
// if n threads run lanes at once.
bool lanes_meet(LaneRunner& runner, size_t n) {
  slow_lanes(runner, n);
  if (!runner.sharing()) return false;
  std::atomic<size_t> arrived{0};
  std::atomic<size_t> met{0};
  runner.run(n, [&](size_t) {
    arrived.fetch_add(1);
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (arrived.load() < n && Clock::now() < deadline) std::this_thread::yield();
    if (arrived.load() == n) met.fetch_add(1);
  });
  return met.load() == n;
}

TEST(lane_runner_runs_lanes_at_once_on_its_helpers) {
  LaneRunner one(1), three(3);
  CHECK(lanes_meet(one, 2));
  CHECK(lanes_meet(three, 4));
  CHECK(lanes_meet(one, 2));  // the helpers started by the first call take the next ones
}

TEST(lane_runner_runs_every_lane_once_and_returns_after_the_last) {
  LaneRunner runner(3);
  for (size_t n : {1, 2, 3, 4, 7, 16}) {
    for (int round = 0; round < 200; ++round) {
      std::vector<std::atomic<int>> runs(n);
      runner.run(n, [&](size_t i) {
        if (i % 3 == 0) std::this_thread::yield();
        runs[i].fetch_add(1, std::memory_order_relaxed);
      });
      for (size_t i = 0; i < n; ++i) CHECK_EQ(runs[i].load(std::memory_order_relaxed), 1);
    }
  }
}

TEST(lane_runner_keeps_quick_lanes_on_the_caller) {
  LaneRunner runner(1);
  // Lanes of nothing are never worth a helper's wake-up. A preemption on a loaded machine can make
  // one call look slow (and the next one share), so this asks for 5 calls in a row on the caller,
  // and checks on every call that was not shared that it ran on this thread alone.
  int in_a_row = 0;
  for (int round = 0; round < 400 && in_a_row < 5; ++round) {
    std::set<std::thread::id> threads;
    std::mutex mu;
    runner.run(4, [&](size_t) {
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    });
    if (runner.sharing()) {
      in_a_row = 0;
      continue;
    }
    CHECK_EQ(threads.size(), size_t{1});
    CHECK(*threads.begin() == std::this_thread::get_id());
    ++in_a_row;
  }
  CHECK_EQ(in_a_row, 5);
  slow_lanes(runner, 4);  // lanes turn slow: the next call shares them
  CHECK(runner.sharing());
  CHECK(lanes_meet(runner, 2));
  for (int round = 0; round < 400 && runner.sharing(); ++round) runner.run(4, [](size_t) {});
  CHECK(!runner.sharing());  // and quick again: back on the caller
}

// A thread with no lane left helps the lanes still running (Assist): lane 1 holds 400 units of
// 20 us, lane 0 one; whoever finishes lane 0 takes units of lane 1 through help(1). Every unit is
// done once, prepare(shared) comes before any lane, and no help runs after run() returned.
TEST(lane_runner_threads_with_no_lane_left_help_the_others) {
  LaneRunner runner(1);
  slow_lanes(runner, 2);
  constexpr int kUnits = 400;
  int helped_rounds = 0;
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> next[2] = {0, 0}, done[2] = {0, 0};
    const int units[2] = {1, kUnits};
    std::atomic<int> by_help{0}, helping{0}, lanes_started{0};
    std::atomic<int> prepared{-1};
    const auto work = [&](size_t i, bool help) {
      while (next[i].fetch_add(1) < units[i]) {
        const auto until = Clock::now() + std::chrono::microseconds(20);
        while (Clock::now() < until) {
        }
        done[i].fetch_add(1);
        if (help) by_help.fetch_add(1);
      }
    };
    const LaneRunner::Assist assist{
        [&](bool shared) {
          CHECK_EQ(lanes_started.load(), 0);
          prepared = shared ? 1 : 0;
        },
        [&](size_t i) {
          helping.fetch_add(1);
          CHECK(i < 2);
          work(i, true);
          helping.fetch_sub(1);
        }};
    runner.run(
        2,
        [&](size_t i) {
          lanes_started.fetch_add(1);
          work(i, false);
        },
        &assist);
    CHECK_EQ(helping.load(), 0);  // every help returned before run() did
    CHECK_EQ(prepared.load(), runner.sharing() ? 1 : 0);
    CHECK_EQ(done[0].load(), 1);
    CHECK_EQ(done[1].load(), kUnits);
    helped_rounds += by_help.load() > 0;
  }
  CHECK(runner.sharing());
  CHECK(helped_rounds > 0);
}

// Without sharing (quick lanes, or no helpers) prepare says so and help never runs.
TEST(lane_runner_unshared_calls_ask_for_no_help) {
  LaneRunner none(0);
  std::atomic<int> helps{0};
  int prepared = -1;
  const LaneRunner::Assist assist{[&](bool shared) { prepared = shared ? 1 : 0; },
                                  [&](size_t) { helps.fetch_add(1); }};
  for (size_t n : {1, 3}) {
    none.run(n, [](size_t) { std::this_thread::sleep_for(std::chrono::microseconds(300)); }, &assist);
    CHECK_EQ(prepared, 0);
  }
  CHECK_EQ(helps.load(), 0);
}

// A step's work is queued after the pools were told whether guests come (prepare) and before any
// lane waits; a queue that fails runs no lane. Both for shared calls and for calls on the caller.
TEST(lane_runner_queues_work_after_prepare_and_before_any_lane) {
  for (size_t helpers : {size_t{0}, size_t{1}}) {
    LaneRunner runner(helpers);
    slow_lanes(runner, 3);  // with a helper: lanes of 300 us, so the calls below are shared
    CHECK_EQ(runner.sharing(), helpers > 0);
    std::mutex mu;
    std::vector<std::string> events;
    const auto note = [&](std::string what) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(std::move(what));
    };
    const LaneRunner::Assist assist{[&](bool shared) { note(shared ? "prepare shared" : "prepare alone"); },
                                    [](size_t) {}};
    for (bool queued_ok : {true, false}) {
      events.clear();
      const std::function<bool()> queue = [&] {
        note("queue");
        return queued_ok;
      };
      const bool ran = runner.run(
          3,
          [&](size_t) {
            note("lane");
            std::this_thread::sleep_for(std::chrono::microseconds(300));
          },
          &assist, &queue);
      CHECK_EQ(ran, queued_ok);
      CHECK(events.size() >= 2);
      CHECK(events[0] == (helpers > 0 ? "prepare shared" : "prepare alone"));
      CHECK(events[1] == "queue");
      CHECK_EQ(std::count(events.begin(), events.end(), std::string("lane")), queued_ok ? 3 : 0);
      CHECK_EQ(std::count(events.begin(), events.end(), std::string("queue")), 1);
    }
  }
}

TEST(lane_runner_without_helpers_runs_lanes_on_the_caller) {
  LaneRunner runner(0);
  std::set<std::thread::id> threads;
  runner.run(5, [&](size_t) { threads.insert(std::this_thread::get_id()); });  // one thread: no lock needed
  CHECK_EQ(threads.size(), size_t{1});
  CHECK(*threads.begin() == std::this_thread::get_id());
}

TEST(lane_runner_serves_a_second_caller_on_its_own_thread) {
  LaneRunner runner(1);
  slow_lanes(runner, 2);
  std::atomic<bool> first_inside{false}, release{false};
  std::thread first([&] {
    runner.run(2, [&](size_t) {  // (shared or not, the first call holds the runner until released)
      first_inside.store(true);
      while (!release.load()) std::this_thread::yield();
    });
  });
  while (!first_inside.load()) std::this_thread::yield();
  // The helpers are busy with the first call: this one runs its lanes on this thread and returns.
  std::mutex mu;
  std::set<std::thread::id> threads;
  runner.run(3, [&](size_t) {
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  CHECK_EQ(threads.size(), size_t{1});
  CHECK(*threads.begin() == std::this_thread::get_id());
  release.store(true);
  first.join();
}

TEST(lane_runner_threads_come_from_the_environment_when_valid) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  ::setenv("ENVHIVE_XLA_LANE_THREADS", "3", 1);
  CHECK_EQ(LaneRunner::threads_from_env(), size_t{3});
  ::setenv("ENVHIVE_XLA_LANE_THREADS", "1", 1);
  CHECK_EQ(LaneRunner::threads_from_env(), size_t{1});
  for (const char* bad : {"0", "-2", "two", "4x", "", "100000"}) {
    ::setenv("ENVHIVE_XLA_LANE_THREADS", bad, 1);
    CHECK_EQ(LaneRunner::threads_from_env(), cores);
  }
  ::unsetenv("ENVHIVE_XLA_LANE_THREADS");
  CHECK_EQ(LaneRunner::threads_from_env(), cores);
}

TEST(lane_runner_a_forked_child_gets_a_runner_of_its_own) {
  LaneRunner& parent = LaneRunner::instance();
  slow_lanes(parent, 2);  // the parent's helper (if the machine has 2 cores) is running now
  const pid_t pid = ::fork();
  CHECK(pid >= 0);
  if (pid == 0) {  // the child: a fresh runner, whose quick lanes run on this thread
    LaneRunner& child = LaneRunner::instance();
    std::vector<int> runs(4, 0);
    child.run(4, [&](size_t i) { ++runs[i]; });
    const bool ok = &child != &parent && runs == std::vector<int>(4, 1) && !child.sharing();
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  CHECK(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(&LaneRunner::instance() == &parent);  // the parent keeps its own
}

}  // namespace
}  // namespace envhive
