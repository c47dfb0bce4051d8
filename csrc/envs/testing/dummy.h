// Dummy-v0: a tiny env for testing the engine itself (routing of actions, ordering in async
// mode, worker failures), in the spirit of EnvPool's DummyEnv. Not a benchmark or an RL task.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "../../core/env.h"

namespace envhive {

class DummyEnv final : public Env {
 public:
  DummyEnv(const Config& c, int env_id)
      : env_id_(env_id),
        episode_length_(c.integer("episode_length")),
        fail_env_(c.integer("fail_env")),
        fail_step_(c.integer("fail_step")) {
    const auto& delays = c.reals("delays_us");
    delay_us_ = delays.empty() ? 0.0 : delays[static_cast<size_t>(env_id) % delays.size()];
  }

  void reset() override {
    draw_ = rng().uniform(0.0, 1.0);
    elapsed_ = 0;
    last_action_ = -1;
  }

  StepResult step(const void* action) override {
    busy_wait();
    ++elapsed_;
    last_action_ = *static_cast<const int64_t*>(action);
    if (env_id_ == fail_env_ && elapsed_ == fail_step_)
      throw std::runtime_error("Dummy-v0 failure injected at step " + std::to_string(elapsed_));
    return {static_cast<double>(last_action_), episode_length_ > 0 && elapsed_ >= episode_length_};
  }

  void write_obs(void* dst) const override {
    auto* o = static_cast<double*>(dst);
    o[0] = draw_;
    o[1] = static_cast<double>(elapsed_);
    o[2] = static_cast<double>(last_action_);
  }

  void write_info(void* const* dst) const override { *static_cast<int64_t*>(dst[0]) = last_action_; }

 private:
  void busy_wait() const {
    if (delay_us_ <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(delay_us_);
    while (std::chrono::steady_clock::now() < until) {
    }
  }

  int env_id_;
  int64_t episode_length_, fail_env_, fail_step_;
  double delay_us_ = 0.0;
  double draw_ = 0.0;
  int64_t elapsed_ = 0, last_action_ = -1;
};

}  // namespace envhive
