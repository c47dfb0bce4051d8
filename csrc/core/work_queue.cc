#include "work_queue.h"

#include <algorithm>

namespace envhive {

void SyncSegments::hand_out(size_t n) {
  const size_t parts = segments_.size() - 1;  // the guests' segment (the last) stays empty
  for (size_t p = 0; p < parts; ++p) {
    const uint64_t front = p * n / parts, back = (p + 1) * n / parts;
    segments_[p].span.store(front | back << 32, std::memory_order_release);
  }
}

size_t SyncSegments::claim(size_t self, int32_t* out, size_t max_take, bool whole) {
  const size_t parts = segments_.size();
  for (size_t k = 0; k < parts; ++k) {
    const bool own = k == 0;  // own segment from the front, the others' from the back
    auto& span = segments_[(self + k) % parts].span;
    uint64_t v = span.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t front = v & 0xffffffffu, back = v >> 32;
      if (front >= back) break;
      const uint64_t left = back - front;
      const uint64_t take = std::min<uint64_t>(whole ? left : (left + 1) / 2, max_take);
      if (take == 0) return 0;
      const uint64_t first = own ? front : back - take;
      const uint64_t next = own ? (front + take) | back << 32 : front | (back - take) << 32;
      if (span.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        for (uint64_t i = 0; i < take; ++i) out[i] = static_cast<int32_t>(first + i);
        return static_cast<size_t>(take);
      }
    }
  }
  return 0;
}

AsyncLanes::AsyncLanes(size_t lanes, size_t num_envs)
    : num_envs_(std::max<size_t>(num_envs, 1)),
      lanes_(std::max<size_t>(lanes, 1)),
      ring_(new std::atomic<int32_t>[lanes_.size() * num_envs_]()),
      seq_(new std::atomic<uint64_t>[lanes_.size() * num_envs_]()),
      scratch_(lanes_.size(), 0) {}

void AsyncLanes::push(const int32_t* ids, size_t n, uint64_t first_seq) {
  const size_t parts = lanes_.size();
  for (size_t p = 0; p < parts; ++p) scratch_[p] = lanes_[p].tail.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    const size_t lane = lane_of(ids[i]);
    const size_t slot = lane * num_envs_ + scratch_[lane]++ % num_envs_;
    ring_[slot].store(ids[i], std::memory_order_relaxed);  // published by the tail's release store
    seq_[slot].store(first_seq + i, std::memory_order_relaxed);
  }
  for (size_t p = 0; p < parts; ++p) lanes_[p].tail.store(scratch_[p], std::memory_order_release);
}

uint64_t AsyncLanes::oldest(size_t lane) const {
  const uint64_t head = lanes_[lane].head.load(std::memory_order_acquire);
  if (head >= lanes_[lane].tail.load(std::memory_order_acquire)) return UINT64_MAX;
  return seq_[lane * num_envs_ + head % num_envs_].load(std::memory_order_relaxed);
}

size_t AsyncLanes::start_lane(size_t own) const {
  const size_t parts = lanes_.size();
  if (parts == 1) return own;
  // Strict order (a window of one place) cost half of the lanes' gain (docs/tuning.md).
  const uint64_t window = std::max<uint64_t>(1, num_envs_ / parts);
  const uint64_t mine = oldest(own);
  uint64_t best = UINT64_MAX;
  size_t start = own;
  for (size_t lane = 0; lane < parts; ++lane) {
    if (lane == own) continue;
    const uint64_t seq = oldest(lane);
    if (seq < best && (mine == UINT64_MAX || seq + window < mine)) {
      best = seq;
      start = lane;
    }
  }
  return start;
}

WorkQueue::WorkQueue(bool sync, size_t participants, size_t num_envs)
    : sync_(sync), segments_(sync ? participants : 0), lanes_(sync ? 1 : participants, sync ? 1 : num_envs) {}

void WorkQueue::push_all(size_t num_envs) {
  segments_.hand_out(num_envs);
  queued_.store(queued_.load(std::memory_order_relaxed) + num_envs, std::memory_order_seq_cst);
}

void WorkQueue::push(const int32_t* ids, size_t n) {
  const uint64_t seq = queued_.load(std::memory_order_relaxed);
  lanes_.push(ids, n, seq);
  queued_.store(seq + n, std::memory_order_seq_cst);
}

}  // namespace envhive
