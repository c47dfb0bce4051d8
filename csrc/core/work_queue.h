// The work queue: which queued env each pool thread steps next. Two schedulers, one per mode,
// both built so an env is stepped by the same thread call after call where possible and its data
// stays in that core's cache (a HalfCheetah step that moves to the other core every call costs
// about 10% more; docs/tuning.md).
//
// Participants are the threads that step envs: the caller is 0, workers 1..n-1 (async pools'
// standby worker stands in for the caller and shares participant 0).
// Producer: the caller alone (push_all / push). Consumers: any participant (claim), lock-free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace envhive {

// Sync pools queue every env on every call. Each participant owns a fixed segment of env ids,
// claims from its front (half of what is left, so the last claims are single envs) and, when it
// is empty, steals from the back of the others'. Front and back share one CAS-updated word.
// One more segment, always empty, is the guests' (guest_slot()): threads from outside the pool
// that help with a call (Pool::assist) only ever steal.
class SyncSegments {
 public:
  explicit SyncSegments(size_t participants) : segments_(participants + 1) {}

  // Queue ids 0..n-1: participant p's segment is [p * n / P, (p + 1) * n / P); the guests' stays empty.
  void hand_out(size_t n);
  size_t guest_slot() const { return segments_.size() - 1; }
  // Claim for participant `self` at most `max_take` ids into `out` (all of its own segment when
  // `whole`: the caller running a batch alone); returns how many.
  size_t claim(size_t self, int32_t* out, size_t max_take, bool whole);

 private:
  struct alignas(64) Segment {
    std::atomic<uint64_t> span{0};  // front in the low 32 bits, back in the high 32
  };
  std::vector<Segment> segments_;
};

// Async pools keep one FIFO lane of queued env ids per participant; an env always goes to the
// lane of its id (lane_of: a contiguous range of ids). A thread takes from its own lane, oldest
// first, then from the others' -- unless another lane's oldest env was sent more than a lane's
// length (num_envs / lanes) before its own lane's oldest: then from that lane first. So a busy or
// sleeping lane owner strands nothing, and an env is overtaken by at most that many later ones.
class AsyncLanes {
 public:
  AsyncLanes(size_t lanes, size_t num_envs);

  size_t lane_of(int32_t id) const { return static_cast<size_t>(id) * lanes_.size() / num_envs_; }
  // Append ids in the order sent, numbered from `first_seq` (no id is queued twice at once).
  void push(const int32_t* ids, size_t n, uint64_t first_seq);
  // Claim for participant `self` at most `max_take` ids into `out`. With a `quick` filter (the
  // waiting caller; null: none), only a prefix of ids it accepts is taken, and nothing from its own lane when
  // another lane is overdue (the standby steps that one). Returns how many.
  template <class Quick>
  size_t claim(size_t self, int32_t* out, size_t max_take, const Quick* quick);

 private:
  struct alignas(64) Lane {
    std::atomic<uint64_t> head{0};
    std::atomic<uint64_t> tail{0};
  };
  uint64_t oldest(size_t lane) const;  // sequence number of the lane's oldest queued env, or UINT64_MAX
  size_t start_lane(size_t self) const;

  size_t num_envs_;
  std::vector<Lane> lanes_;
  // Lane l's slots: ring_[l * num_envs_ .. (l + 1) * num_envs_), and beside each slot its place in
  // the order sent. Consumers read a slot before claiming it (a claimed slot may be refilled by the
  // producer under a reader whose claim then fails and discards what it read): relaxed atomics.
  std::unique_ptr<std::atomic<int32_t>[]> ring_;
  std::unique_ptr<std::atomic<uint64_t>[]> seq_;
  std::vector<uint64_t> scratch_;  // push only (caller): the lanes' tails while appending
};

// A claim filter that takes any env (a worker's, or a sync caller's).
struct AnyEnv {
  bool operator()(int32_t) const { return true; }
};
inline constexpr const AnyEnv* kAnyEnv = nullptr;

// The queue of a pool: the scheduler of its mode, and two counters over everything queued and
// claimed so far, which answer "is anything queued" with two loads.
class WorkQueue {
 public:
  WorkQueue(bool sync, size_t participants, size_t num_envs);

  bool sync() const { return sync_; }
  // Caller only. Sync: queue every env (ids 0..num_envs-1). Async: queue `ids`.
  void push_all(size_t num_envs);
  void push(const int32_t* ids, size_t n);
  // Any participant. `quick` filters async claims (kAnyEnv: none); `whole`: a sync caller takes
  // its whole segment (a solo batch).
  template <class Quick>
  size_t claim(size_t self, int32_t* out, size_t max_take, bool whole, const Quick* quick) {
    const size_t n = sync_ ? segments_.claim(self, out, max_take, whole) : lanes_.claim(self, out, max_take, quick);
    if (n) claimed_.fetch_add(n, std::memory_order_acq_rel);  // keeps nonempty() true to its word
    return n;
  }
  bool nonempty() const {
    return claimed_.load(std::memory_order_seq_cst) < queued_.load(std::memory_order_seq_cst);
  }
  // Sync: the participant index a guest claims as (SyncSegments::guest_slot).
  size_t guest_slot() const { return segments_.guest_slot(); }
 private:
  bool sync_;
  SyncSegments segments_;
  AsyncLanes lanes_;
  alignas(64) std::atomic<uint64_t> claimed_{0};
  alignas(64) std::atomic<uint64_t> queued_{0};
};

template <class Quick>
size_t AsyncLanes::claim(size_t self, int32_t* out, size_t max_take, const Quick* quick) {
  const size_t parts = lanes_.size();
  const size_t own = self % parts;
  const size_t start = start_lane(own);
  const bool overdue = start != own;
  for (size_t k = 0; k < parts; ++k) {
    const size_t lane = (start + k) % parts;
    Lane& l = lanes_[lane];
    const std::atomic<int32_t>* ring = ring_.get() + lane * num_envs_;
    uint64_t head = l.head.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t tail = l.tail.load(std::memory_order_acquire);
      if (head >= tail) break;
      // Half of what is queued there, so what is left can be stolen.
      size_t take = std::min<size_t>(static_cast<size_t>(tail - head + 1) / 2, max_take);
      // Read before claiming: once the claim succeeds these slots may be reused.
      for (size_t i = 0; i < take; ++i) out[i] = ring[(head + i) % num_envs_].load(std::memory_order_relaxed);
      if (quick) {  // FIFO: stop at the first env the filter refuses
        size_t accepted = 0;
        while (accepted < take && (*quick)(out[accepted])) ++accepted;
        if (accepted == 0 && k == 0 && overdue) return 0;  // must not overtake it: the standby steps it
        if (accepted == 0) break;
        take = accepted;
      }
      if (take == 0) break;
      if (l.head.compare_exchange_weak(head, head + take, std::memory_order_acq_rel, std::memory_order_acquire))
        return take;
    }
  }
  return 0;
}

}  // namespace envhive
