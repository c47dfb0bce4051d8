// Output batches: one contiguous block per batch holding every output array, laid out once
// per pool. Workers write rows straight into a block; Python receives numpy views on it and
// owns the block from then on, so a later call can never change an array already returned.
// Blocks come back through the recycler when Python drops the last view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "spec.h"

namespace envhive {

inline size_t align64(size_t n) { return (n + 63) & ~size_t{63}; }

struct BatchLayout {
  size_t rows = 0;
  size_t obs_row_bytes = 0;
  size_t obs = 0, reward = 0, terminated = 0, truncated = 0, env_id = 0, elapsed_step = 0;
  std::vector<size_t> infos;  // one offset per declared info field
  // SAME_STEP only: the terminal step's observation, elapsed step and infos, and which rows have them.
  size_t final_mask = 0, final_obs = 0, final_elapsed_step = 0;
  std::vector<size_t> final_infos;
  size_t total = 0;

  BatchLayout() = default;
  BatchLayout(size_t rows_, const Spaces& spaces, bool with_final) : rows(rows_) {
    obs_row_bytes = spaces.observation.bytes();
    size_t at = 0;
    auto take = [&at](size_t bytes) {
      size_t off = at;
      at += align64(bytes);
      return off;
    };
    obs = take(rows * obs_row_bytes);
    reward = take(rows * sizeof(double));
    terminated = take(rows);
    truncated = take(rows);
    env_id = take(rows * sizeof(int32_t));
    elapsed_step = take(rows * sizeof(int32_t));
    for (const auto& info : spaces.infos) infos.push_back(take(rows * info.bytes()));
    if (with_final) {
      final_mask = take(rows);
      final_obs = take(rows * obs_row_bytes);
      final_elapsed_step = take(rows * sizeof(int32_t));
      for (const auto& info : spaces.infos) final_infos.push_back(take(rows * info.bytes()));
    }
    total = at;
  }
};

// Keeps released blocks for reuse (large Atari batches would otherwise be mmap'd per call).
// Shared by the pool and every block handed to Python, so blocks may outlive the pool.
class BlockRecycler {
 public:
  explicit BlockRecycler(size_t block_bytes, size_t keep) : bytes_(block_bytes), keep_(keep) {}
  ~BlockRecycler() {
    for (auto* b : free_) free_block(b);
  }
  std::byte* acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        auto* b = free_.back();
        free_.pop_back();
        return b;
      }
    }
    return static_cast<std::byte*>(::operator new(bytes_ == 0 ? 64 : bytes_, std::align_val_t{64}));
  }
  void release(std::byte* b) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_.size() < keep_) {
        free_.push_back(b);
        return;
      }
    }
    free_block(b);
  }

 private:
  static void free_block(std::byte* b) { ::operator delete(b, std::align_val_t{64}); }
  size_t bytes_, keep_;
  std::mutex mu_;
  std::vector<std::byte*> free_;
};

}  // namespace envhive
