// NChain-v0: EnvPool's toy-text NChain (gym 0.20's nchain), step for step as EnvPool 1.2.5 runs it (it
// has no Gymnasium reference: EnvPool's own code and tests define it). Five states in a chain from 0;
// action 0 moves forward (reward 0, or 10 staying at the end, state 4), action 1 goes back to 0 with
// reward 2; with probability 0.2 the action taken is the other one. No episode ends but by the time
// limit, max_episode_steps (1000; a truncation, as in EnvPool). Randomness is EnvPool's: std::mt19937
// seeded with the env's seed (EnvPool's seed + env id), never reseeded by a reset, and one
// std::uniform_real_distribution<double>(0, 1) draw a step.
#pragma once

#include <cstring>
#include <random>
#include <vector>

#include "../../core/task.h"

namespace envhive::toy_text {

class NChainEnv final : public Env {
 public:
  static constexpr int64_t kStates = 5;
  static constexpr double kSlip = 0.2;

  static std::vector<ConfigField> config() { return {}; }
  static Spaces spaces(const Config&) { return {SpaceSpec::discrete(kStates), SpaceSpec::discrete(2), {}}; }
  NChainEnv(const Config& /*c*/, int /*env_id*/) {}

  void seed(uint64_t s) override { gen_.seed(static_cast<std::mt19937::result_type>(s)); }
  void seed_from_os() override { gen_.seed(std::random_device{}()); }

  void reset() override { s_ = 0; }
  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    if (slip_(gen_) < kSlip) a = 1 - a;
    if (a != 0) {
      s_ = 0;
      return {2.0, false};
    }
    if (s_ < kStates - 1) {
      ++s_;
      return {0.0, false};
    }
    return {10.0, false};
  }
  void write_obs(void* dst) const override { std::memcpy(dst, &s_, sizeof(s_)); }

 private:
  std::mt19937 gen_;
  std::uniform_real_distribution<double> slip_{0.0, 1.0};
  int64_t s_ = 0;
};

}  // namespace envhive::toy_text
