// Output batches: one contiguous block per batch holding every output array, laid out once per
// pool. Workers write rows straight into a block; Python receives numpy views on it and owns the
// block from then on, so a later call never changes an array already returned. Blocks come back
// through the recycler when Python drops the last view.
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

// One array of a batch: `rows` values of T starting `offset` bytes into the block.
template <class T>
struct Column {
  size_t offset = 0;
  T* in(std::byte* block) const { return reinterpret_cast<T*>(block + offset); }
  const T* in(const std::byte* block) const { return reinterpret_cast<const T*>(block + offset); }
};

// One array of a batch whose rows are `row_bytes` each (an observation or an info field).
struct RowColumn {
  size_t offset = 0;
  size_t row_bytes = 0;
  std::byte* row(std::byte* block, size_t r) const { return block + offset + r * row_bytes; }
  const std::byte* in(const std::byte* block) const { return block + offset; }
};

// Where each output array of a batch lives in its block. An observation has one column per leaf
// (space_leaves order); a Box, Discrete or Text observation is its own only leaf.
struct BatchLayout {
  size_t rows = 0;
  std::vector<RowColumn> obs;
  Column<double> reward;
  Column<bool> terminated, truncated;
  Column<int32_t> env_id, elapsed_step;
  std::vector<RowColumn> infos;  // one per declared info field
  // dm_env's step type (FIRST 0, MID 1, LAST 2) and discount, written on the caller's thread by
  // the dm facade's calls from the columns above; the workers never touch them.
  Column<int8_t> step_type;
  Column<float> discount;
  // SAME_STEP only: which rows ended an episode, and their terminal observation, step and infos.
  Column<bool> final_mask;
  std::vector<RowColumn> final_obs;
  Column<int32_t> final_elapsed_step;
  std::vector<RowColumn> final_infos;
  bool with_final = false;  // the columns above exist (SAME_STEP): the one place that says so
  size_t total = 0;  // bytes of a block

  BatchLayout() = default;
  BatchLayout(size_t rows_, const Spaces& spaces, bool with_final_) : rows(rows_), with_final(with_final_) {
    size_t at = 0;
    auto column = [&]<class T>(Column<T>& c) {
      c.offset = at;
      at += align64(rows * sizeof(T));
    };
    auto row_column = [&](RowColumn& c, size_t row_bytes) {
      c = {at, row_bytes};
      at += align64(rows * row_bytes);
    };
    const std::vector<SpaceLeaf> leaves = space_leaves(spaces.observation);
    obs.resize(leaves.size());
    for (size_t k = 0; k < leaves.size(); ++k) row_column(obs[k], leaves[k].spec->bytes());
    column(reward);
    column(terminated);
    column(truncated);
    column(env_id);
    column(elapsed_step);
    infos.resize(spaces.infos.size());
    for (size_t f = 0; f < infos.size(); ++f) row_column(infos[f], spaces.infos[f].bytes());
    column(step_type);
    column(discount);
    if (with_final) {
      column(final_mask);
      final_obs.resize(leaves.size());
      for (size_t k = 0; k < leaves.size(); ++k) row_column(final_obs[k], leaves[k].spec->bytes());
      column(final_elapsed_step);
      final_infos.resize(spaces.infos.size());
      for (size_t f = 0; f < final_infos.size(); ++f) row_column(final_infos[f], spaces.infos[f].bytes());
    }
    total = at;
  }
};

// Keeps released blocks for reuse (large Atari batches would otherwise be mmap'd per call).
// Shared by the pool and every block handed to Python, so blocks may outlive the pool.
// Thread-safe: Python releases blocks from whichever thread drops the last view.
class BlockRecycler {
 public:
  explicit BlockRecycler(size_t block_bytes, size_t keep) : bytes_(block_bytes), keep_(keep) {}
  ~BlockRecycler() {
    for (auto* b : free_) free_block(b);
  }
  BlockRecycler(const BlockRecycler&) = delete;
  BlockRecycler& operator=(const BlockRecycler&) = delete;

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
  size_t block_bytes() const { return bytes_; }

 private:
  static void free_block(std::byte* b) { ::operator delete(b, std::align_val_t{64}); }
  const size_t bytes_, keep_;
  std::mutex mu_;
  std::vector<std::byte*> free_;  // guarded by mu_
};

}  // namespace envhive
