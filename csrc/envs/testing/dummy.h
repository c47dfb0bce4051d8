// Dummy-v0: a tiny env for testing the engine itself (routing of actions, ordering in async
// mode, worker failures), in the spirit of EnvPool's DummyEnv. Not a benchmark or an RL task.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "../../core/cancel.h"
#include "../../core/task.h"

namespace envhive {

class DummyEnv final : public Env {
 public:
  static std::vector<ConfigField> config() {
    return {
        {"episode_length", int64_t{10}, "terminate after this many steps (0: never)"},
        {"delays_us", std::vector<double>{}, "per-env busy-wait per step in microseconds, env i uses [i % len]"},
        {"fail_env", int64_t{-1}, "env id that raises inside step (-1: none)"},
        {"fail_step", int64_t{-1}, "episode step at which fail_env raises"},
        {"fail_reset_env", int64_t{-1}, "env id whose reset raises after its first (-1: none)"},
        {"cancellable", false,
         "the busy-wait is a loop of cancellation points (core/cancel.h): close() and Ctrl-C stop a long step"},
        {"fail_with", std::string("runtime_error"),
         "what the injected failure throws: 'runtime_error', or 'int' (not a std::exception)"},
    };
  }
  static Spaces spaces(const Config&) {
    Spaces s;
    s.observation = SpaceSpec::box(DType::kFloat64, {3}, {-1.0}, {1e9});
    s.action = SpaceSpec::discrete(1000);
    s.infos = {InfoSpec{"last_action", DType::kInt64, {}}};
    return s;
  }

  DummyEnv(const Config& c, int env_id)
      : env_id_(env_id),
        episode_length_(c.integer("episode_length")),
        fail_env_(c.integer("fail_env")),
        fail_step_(c.integer("fail_step")),
        fail_reset_env_(c.integer("fail_reset_env")),
        throw_int_(c.text("fail_with") == "int"),
        cancellable_(c.flag("cancellable")) {
    if (c.text("fail_with") != "runtime_error" && !throw_int_)
      throw std::invalid_argument("fail_with must be 'runtime_error' or 'int'");
    const auto& delays = c.reals("delays_us");
    delay_us_ = delays.empty() ? 0.0 : delays[static_cast<size_t>(env_id) % delays.size()];
  }

  void reset() override {
    if (env_id_ == fail_reset_env_ && resets_++ > 0) fail("Dummy-v0 reset failure injected");
    draw_ = rng().uniform(0.0, 1.0);
    elapsed_ = 0;
    last_action_ = -1;
  }

  StepResult step(const void* action) override {
    busy_wait();
    ++elapsed_;
    last_action_ = *static_cast<const int64_t*>(action);
    if (env_id_ == fail_env_ && elapsed_ == fail_step_) fail("Dummy-v0 failure injected at step " + std::to_string(elapsed_));
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
  [[noreturn]] void fail(const std::string& what) const {
    if (throw_int_) throw 42;  // an exception that is not a std::exception: the pool must report it too
    throw std::runtime_error(what);
  }
  void busy_wait() const {
    if (delay_us_ <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(delay_us_);
    while (std::chrono::steady_clock::now() < until)
      if (cancellable_) cancellation_point();
  }

  int env_id_;
  int64_t episode_length_, fail_env_, fail_step_, fail_reset_env_;
  bool throw_int_;
  bool cancellable_;
  int64_t resets_ = 0;
  double delay_us_ = 0.0;
  double draw_ = 0.0;
  int64_t elapsed_ = 0, last_action_ = -1;
};

}  // namespace envhive
