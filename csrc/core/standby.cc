#include "standby.h"

#include "tuning.h"

namespace envhive {

void Standby::sleep(bool poll, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mu_);
  asleep_.store(true, std::memory_order_seq_cst);
  const auto ready = [&] { return go_ || stop.load(std::memory_order_seq_cst); };
  if (poll)
    cv_.wait_for(lock, tuning::kStandbyPoll, ready);
  else
    cv_.wait(lock, ready);
  go_ = false;
  asleep_.store(false, std::memory_order_relaxed);
}

void Standby::wake() {
  if (!asleep_.load(std::memory_order_seq_cst)) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    go_ = true;
  }
  cv_.notify_one();
}

void Standby::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    go_ = true;
  }
  cv_.notify_all();
}

}  // namespace envhive
