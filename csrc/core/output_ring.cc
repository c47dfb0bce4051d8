#include "output_ring.h"

namespace envhive {

OutputRing::OutputRing(size_t num_envs, size_t batch_size, std::shared_ptr<BlockRecycler> recycler)
    : batch_size_(batch_size), recycler_(std::move(recycler)), slots_((num_envs + batch_size - 1) / batch_size + 1) {
  for (auto& slot : slots_) slot.block.store(recycler_->acquire(), std::memory_order_relaxed);
}

std::byte* OutputRing::take(bool& failed) {
  Slot& slot = slots_[received_ % slots_.size()];
  std::byte* block = slot.block.load(std::memory_order_acquire);
  failed = slot.failed.exchange(false, std::memory_order_relaxed);
  slot.finished.store(0, std::memory_order_relaxed);
  // A fresh block for the batch size() ahead; published to its writers by the caller's next send.
  slot.block.store(recycler_->acquire(), std::memory_order_release);
  ++received_;
  return block;
}

void OutputRing::rebase() {
  for (auto& slot : slots_) {
    slot.finished.store(0, std::memory_order_relaxed);
    slot.failed.store(false, std::memory_order_relaxed);
  }
  counter_.store(0, std::memory_order_relaxed);
  completed_.store(0, std::memory_order_relaxed);
  received_ = 0;
}

void OutputRing::release_blocks() {
  for (auto& slot : slots_)
    if (auto* b = slot.block.exchange(nullptr)) recycler_->release(b);
}

}  // namespace envhive
