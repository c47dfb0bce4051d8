// RngDraws-v0: runs a program of numpy Generator calls on the env's generator at each reset and
// reports what they drew, so tests can check core/rng.h against numpy call by call (integers over
// 32- and 64-bit ranges, random(), shuffle()), including how the calls share numpy's buffered
// 32-bit half-draws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive {

class RngDrawsEnv final : public Env {
 public:
  // Program: triples (op, a, b). op 0: integers(a, b); 1: random(); 2: shuffle(list(range(a))).
  enum Op : int64_t { kIntegers = 0, kRandom = 1, kShuffle = 2 };

  static std::vector<ConfigField> config() {
    return {{"program", std::vector<double>{}, "(op, a, b) triples: 0 integers(a, b), 1 random(), 2 shuffle(range(a))"},
            {"outputs", int64_t{1}, "length of the observation (the draws, in order, then zeros)"}};
  }
  static Spaces spaces(const Config& c) {
    return {SpaceSpec::box(DType::kFloat64, {c.integer("outputs")}, {-1e300}, {1e300}), SpaceSpec::discrete(1), {}};
  }
  RngDrawsEnv(const Config& c, int /*env_id*/)
      : program_(c.reals("program")), draws_(static_cast<size_t>(c.integer("outputs"))) {
    if (program_.size() % 3 != 0) throw std::invalid_argument("program must hold (op, a, b) triples");
  }

  void reset() override {
    std::vector<double> out;
    for (size_t k = 0; k < program_.size(); k += 3) {
      const auto op = static_cast<int64_t>(program_[k]);
      const auto a = static_cast<int64_t>(program_[k + 1]), b = static_cast<int64_t>(program_[k + 2]);
      if (op == kIntegers) {
        out.push_back(static_cast<double>(rng().integers(a, b)));
      } else if (op == kRandom) {
        out.push_back(rng().next_double());
      } else if (op == kShuffle) {
        std::vector<int64_t> items(static_cast<size_t>(a));
        for (int64_t i = 0; i < a; ++i) items[static_cast<size_t>(i)] = i;
        rng().shuffle(items.data(), items.size());
        for (int64_t v : items) out.push_back(static_cast<double>(v));
      } else {
        throw std::invalid_argument("unknown op " + std::to_string(op));
      }
    }
    if (out.size() > draws_.size()) throw std::invalid_argument("more draws than outputs");
    out.resize(draws_.size(), 0.0);
    draws_ = out;
  }
  StepResult step(const void*) override { return {0.0, true}; }
  void write_obs(void* dst) const override {
    auto* o = static_cast<double*>(dst);
    for (size_t i = 0; i < draws_.size(); ++i) o[i] = draws_[i];
  }

 private:
  std::vector<double> program_;
  std::vector<double> draws_;
};

}  // namespace envhive
