// Catch-v0: EnvPool's toy-text Catch (bsuite's catch), step for step as EnvPool 1.2.5 runs it (it has
// no Gymnasium reference: EnvPool's own code and tests define it). A ball falls one row a step down a
// height x width board from a random column of the top row; the paddle, starting in the middle of the
// bottom row, moves left (0), stays (1) or moves right (2), kept on the board. When the ball reaches
// the bottom row the episode terminates with reward 1 if the paddle is under it, else -1; every other
// step rewards 0. The observation is the board, float32: 1 at the ball and at the paddle.
// Randomness is EnvPool's: std::mt19937 seeded with the env's seed (EnvPool's seed + env id) and never
// reseeded by a reset; the ball's column is std::uniform_int_distribution<int>(0, width - 1) of it.
#pragma once

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "../../core/task.h"

namespace envhive::toy_text {

class CatchEnv final : public Env {
 public:
  static constexpr int64_t kMaxSide = 4096;

  static std::vector<ConfigField> config() {
    return {
        {"height", int64_t{10}, "Rows of the board: the ball falls height - 1 steps (>= 2)."},
        {"width", int64_t{5}, "Columns of the board (>= 1)."},
    };
  }
  static Spaces spaces(const Config& c) {
    const int64_t h = c.integer_in("height", 2, kMaxSide), w = c.integer_in("width", 1, kMaxSide);
    return {SpaceSpec::box(DType::kFloat32, {h, w}, {0.0}, {1.0}), SpaceSpec::discrete(3), {}};
  }
  CatchEnv(const Config& c, int /*env_id*/)
      : height_(static_cast<int>(c.integer_in("height", 2, kMaxSide))),
        width_(static_cast<int>(c.integer_in("width", 1, kMaxSide))),
        column_(0, width_ - 1) {}

  void seed(uint64_t s) override { gen_.seed(static_cast<std::mt19937::result_type>(s)); }
  void seed_from_os() override { gen_.seed(std::random_device{}()); }

  void reset() override {
    row_ = 0;
    col_ = column_(gen_);
    paddle_ = width_ / 2;
  }
  StepResult step(const void* action) override {
    int64_t a;
    std::memcpy(&a, action, sizeof(a));
    paddle_ = std::min(std::max(paddle_ + static_cast<int>(a) - 1, 0), width_ - 1);
    if (++row_ == height_ - 1) return {col_ == paddle_ ? 1.0 : -1.0, true};
    return {0.0, false};
  }
  void write_obs(void* dst) const override {
    auto* board = static_cast<float*>(dst);
    std::memset(board, 0, sizeof(float) * static_cast<size_t>(height_) * static_cast<size_t>(width_));
    board[static_cast<size_t>(row_) * static_cast<size_t>(width_) + static_cast<size_t>(col_)] = 1.0f;
    board[static_cast<size_t>(height_ - 1) * static_cast<size_t>(width_) + static_cast<size_t>(paddle_)] = 1.0f;
  }

 private:
  int height_, width_;
  std::mt19937 gen_;
  std::uniform_int_distribution<int> column_;
  int row_ = 0, col_ = 0, paddle_ = 0;
};

}  // namespace envhive::toy_text
