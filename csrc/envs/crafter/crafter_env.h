// CrafterReward-v1 / CrafterNoReward-v1: crafter 1.8.3's Env on envhive's pool.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "../../core/task.h"
#include "game.h"
#include "renderer.h"
#include "textures.h"

namespace envhive::crafter {

class CrafterEnv final : public Env {
 public:
  static std::vector<ConfigField> config(const std::shared_ptr<const TextureLoader>&, bool reward);
  static Spaces spaces(const Config& c, const std::shared_ptr<const TextureLoader>&, bool reward);
  CrafterEnv(const Config& c, int env_id, const std::shared_ptr<const TextureLoader>& textures, bool reward);

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

  // Env i of a pool seeded s is crafter.Env(seed=s + i): its episodes' worlds are seeded from
  // hash((seed, episode)); reseeding starts the episode count again.
  void seed(uint64_t s) override;
  void seed_from_os() override;

 private:
  struct Shape {
    int area_x, area_y, view_x, view_y, size_x, size_y;
    int64_t length;
  };
  static Shape shape_of(const Config& c);

  std::shared_ptr<const TextureSet> textures_;
  bool reward_enabled_;
  Shape shape_;
  Game game_;
  Renderer renderer_;
  uint64_t seed_ = 0;
  int64_t episode_ = 0;
  int last_health_ = 0;
  std::array<bool, kNumAchievements> unlocked_{};
  std::vector<uint8_t> frame_;
  double raw_reward_ = 0;
  bool dead_ = false;
};

}  // namespace envhive::crafter
