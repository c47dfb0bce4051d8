// The output ring: the batch blocks envs write their rows into, and the counters that tell the
// caller when a batch is complete.
//
// Completions take indexes k = 0, 1, 2, ... from one counter (a whole chunk of envs claims its
// indexes with one add); index k is row k % batch_size of batch k / batch_size, which lives in
// slot (k / batch_size) % size(). Sync pools write row = env id instead (same batch).
// size() = ceil(num_envs / batch_size) + 1: at most num_envs completions are unreceived, so a
// slot is written again only after the caller took its batch -- and take() hands the block to
// Python and puts a fresh one in the slot, so a block Python holds is never written again.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "batch.h"

namespace envhive {

class OutputRing {
 public:
  struct alignas(64) Slot {
    std::atomic<std::byte*> block{nullptr};
    std::atomic<int> finished{0};     // rows written and published
    std::atomic<bool> failed{false};  // an env of this batch threw: take() reports it
  };

  OutputRing(size_t num_envs, size_t batch_size, std::shared_ptr<BlockRecycler> recycler);
  ~OutputRing() { release_blocks(); }
  OutputRing(const OutputRing&) = delete;
  OutputRing& operator=(const OutputRing&) = delete;

  size_t size() const { return slots_.size(); }
  const std::shared_ptr<BlockRecycler>& recycler() const { return recycler_; }

  // --- writers (any pool thread) ---
  // The first of n consecutive completion indexes.
  uint64_t claim(size_t n) { return counter_.fetch_add(n, std::memory_order_relaxed); }
  Slot& slot_of(uint64_t k) { return slots_[(k / batch_size_) % slots_.size()]; }
  size_t row_of(uint64_t k) const { return static_cast<size_t>(k % batch_size_); }
  // Rows of a batch written (with release): returns true when that completed the batch.
  bool publish(Slot& slot, size_t rows, bool failed) {
    if (failed) slot.failed.store(true, std::memory_order_relaxed);  // published by the add below
    const int done = slot.finished.fetch_add(static_cast<int>(rows), std::memory_order_seq_cst) + static_cast<int>(rows);
    return done == static_cast<int>(batch_size_);
  }
  // Envs completed so far (drain waits on it); returns the new total.
  uint64_t count_completed(size_t n) { return completed_.fetch_add(n, std::memory_order_seq_cst) + n; }
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }

  // --- the caller ---
  bool ready() const {
    return slots_[received_ % slots_.size()].finished.load(std::memory_order_acquire) >= static_cast<int>(batch_size_);
  }
  // The next batch (ready() must hold): its block now belongs to the caller, who gives it back
  // through recycler()->release. `failed` says whether an env of the batch threw.
  std::byte* take(bool& failed);
  // Nothing is in flight (every thread idle): forget unreceived batches and count from zero.
  void rebase();
  // Give every slot's block back (the pool is closing; no thread writes any more).
  void release_blocks();

 private:
  size_t batch_size_;
  std::shared_ptr<BlockRecycler> recycler_;
  std::vector<Slot> slots_;
  alignas(64) std::atomic<uint64_t> counter_{0};    // completion indexes handed out
  alignas(64) std::atomic<uint64_t> completed_{0};  // completions counted
  uint64_t received_ = 0;                           // caller only: batches taken since the last rebase
};

}  // namespace envhive
