// StructuredDummy-v0: an engine test env whose observation is a Dict holding every kind of leaf
// (Box, Discrete, Text, and a Tuple of a Box and a Discrete), so every path a structured
// observation takes (batch columns, numpy views, SAME_STEP final observations, the XLA outputs,
// the facades) is tested without a family. Not a benchmark or an RL task.
#pragma once

#include <cstring>
#include <string>

#include "../../core/task.h"

namespace envhive {

class StructuredDummyEnv final : public Env {
 public:
  static constexpr int64_t kMissionBytes = 24;

  static std::vector<ConfigField> config() {
    return {{"episode_length", int64_t{5}, "terminate after this many steps (0: never)"}};
  }
  static Spaces spaces(const Config&) {
    Spaces s;
    s.observation = SpaceSpec::dict({
        {"pos", SpaceSpec::box(DType::kFloat32, {2}, {-1.0}, {1.0})},
        {"count", SpaceSpec::discrete(1000)},
        {"mission", SpaceSpec::text(kMissionBytes, 1, "abcdefghijklmnopqrstuvwxyz 0123456789")},
        {"pair", SpaceSpec::tuple({SpaceSpec::box(DType::kInt32, {3}, {0.0}, {100.0}), SpaceSpec::discrete(3, -1)})},
    });
    s.action = SpaceSpec::discrete(3);
    s.infos = {InfoSpec{"last_action", DType::kInt64, {}}};
    return s;
  }

  StructuredDummyEnv(const Config& c, int env_id) : env_id_(env_id), episode_length_(c.integer("episode_length")) {}

  void reset() override {
    draw_ = rng().uniform(-1.0, 1.0);
    elapsed_ = 0;
    last_action_ = 0;
  }

  StepResult step(const void* action) override {
    ++elapsed_;
    last_action_ = *static_cast<const int64_t*>(action);
    return {static_cast<double>(last_action_), episode_length_ > 0 && elapsed_ >= episode_length_};
  }

  // Leaves in declared order: pos, count, mission, pair/0, pair/1.
  void write_obs_leaves(void* const* dst) const override {
    auto* pos = static_cast<float*>(dst[0]);
    pos[0] = static_cast<float>(draw_);
    pos[1] = static_cast<float>(env_id_);
    *static_cast<int64_t*>(dst[1]) = elapsed_;
    const std::string mission = "env " + std::to_string(env_id_) + " step " + std::to_string(elapsed_);
    std::memset(dst[2], 0, kMissionBytes);
    std::memcpy(dst[2], mission.data(), std::min<size_t>(mission.size(), kMissionBytes));
    auto* triple = static_cast<int32_t*>(dst[3]);
    triple[0] = env_id_;
    triple[1] = static_cast<int32_t>(elapsed_);
    triple[2] = static_cast<int32_t>(last_action_);
    *static_cast<int64_t*>(dst[4]) = last_action_ - 1;
  }

  void write_info(void* const* dst) const override { *static_cast<int64_t*>(dst[0]) = last_action_; }

 private:
  int env_id_;
  int64_t episode_length_;
  double draw_ = 0.0;
  int64_t elapsed_ = 0, last_action_ = 0;
};

}  // namespace envhive
