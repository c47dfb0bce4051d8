// Every tuning constant of the pool, with one line of why. The measurements behind them are in
// docs/tuning.md; change one only with a side-by-side benchmark of before and after.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace envhive::tuning {

// Most envs one claim takes (stack arrays of a chunk are this long): large enough that a claim's
// atomics are amortised, small enough that a thread finishing early finds work left to steal.
inline constexpr size_t kMaxChunk = 64;

// A waiting caller polls this long before it sleeps: a futex wake-up costs more than a small batch.
inline constexpr std::chrono::microseconds kCallerSpin{50};
// An idle worker polls this long before it sleeps: the next batch usually comes within microseconds.
inline constexpr std::chrono::microseconds kWorkerSpin{100};
// A helper of batched XLA calls (xla/lane_runner.h) polls this long for the next call before it
// sleeps: in a jitted scan the next vmapped step follows within microseconds, and waking a sleeping
// thread costs tens of microseconds on a VM. Polls yield the core, as the workers' do.
inline constexpr std::chrono::microseconds kLaneHelperSpin{100};
// A batched XLA call shares its lanes with the helpers once the lanes after the first are
// estimated (running mean of a lane) to take over kLaneShareAboveNs, and waits for them alone again
// below kLaneShareBelowNs: a helper takes 20-30 us to join on a 2-core VM, so lanes of a few
// microseconds (16 CartPole envs) ran at 0.8x one after another on the calling thread.
inline constexpr double kLaneShareAboveNs = 100'000;
inline constexpr double kLaneShareBelowNs = 50'000;
// Weight of the newest call in the running mean of a lane's time.
inline constexpr double kLaneCostWeight = 0.2;
// A sleeping caller wakes this often to poll Ctrl-C, its deadline and a close from another thread.
inline constexpr std::chrono::milliseconds kSleepSlice{20};
// A caller that steps envs itself checks Ctrl-C at least this often (it bounds the caller's claims
// by the running mean of a step, so it returns within one step of its current env).
inline constexpr int64_t kSignalCheckNs = 10'000'000;

// Sync batches estimated below kSoloBelowNs run on the caller alone (handing envs to another core
// costs a few us of wake-ups and cache-line moves); above kSharedAboveNs they are shared again. The
// gap keeps a batch near the line from flipping every call.
inline constexpr double kSoloBelowNs = 8'000;
inline constexpr double kSharedAboveNs = 16'000;
// Weight of the newest chunk in the running mean of an env's step cost.
inline constexpr double kEnvCostWeight = 0.1;
// A sync pool whose only thread is the caller times one chunk in this many (the others count as
// the running mean says): a clock pair costs about 4% of a 1-env CartPole call.
inline constexpr uint32_t kSampleEvery = 16;

// Async: an env is "quick" when the chunk of its last step took under this: the longest a waiting
// caller that steps it may keep a batch that is ready from being returned.
inline constexpr double kQuickBelowNs = 1'000'000;
// Async: the most work (by the running mean) a waiting caller claims at once.
inline constexpr double kCallerChunkNs = 20'000;
// Async: the standby worker steps once the caller has been out of recv this long (it is running
// Python between batches); sooner would put a third thread on two cores for a few microseconds.
inline constexpr int64_t kStandbyAfterNs = 50'000;
// Async: while work is queued and the caller is away, a sleeping standby looks again this often
// (a wake-up can race ahead of its sleep).
inline constexpr std::chrono::milliseconds kStandbyPoll{1};

// render(): the caller waits for workers still drawing their last frame (a MuJoCo frame is ~0.1 s
// on a CPU, a classic-control one ~0.1 ms): this many yields, then naps of kRenderNap.
inline constexpr int kRenderWaitYields = 64;
inline constexpr std::chrono::microseconds kRenderNap{100};
}  // namespace envhive::tuning
