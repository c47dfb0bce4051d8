// BipedalWalker-v3 / BipedalWalkerHardcore-v3: gymnasium.envs.box2d.bipedal_walker.BipedalWalker,
// step for step.
//
// Unlike LunarLander, Gymnasium keeps one Box2D world for the env's life: reset() destroys the
// previous episode's bodies (terrain in its reversed list order, hull, legs) and builds the next
// in the same world, whose allocators, proxy ids and contact lists carry over. envhive does the
// same operations in the same order on its own world, so the pair order Box2D solves contacts in
// is the same. The terrain (grass, and in hardcore mode stumps, stairs and pits), the clouds, the
// initial push and the lidar are Gymnasium's, with np_random's draws in the same order.
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <memory>
#include <vector>

#include "../../core/task.h"
#include "render/bipedal_walker_scene.h"

namespace envhive::box2d {

class BipedalWalkerEnv final : public Env {
 public:
  static constexpr int kViewportW = 600, kViewportH = 400, kFps = 50;

  static std::vector<ConfigField> config(bool hardcore) {
    return {{"hardcore", hardcore, "Terrain with stumps, stairs and pits (BipedalWalkerHardcore-v3)."}};
  }
  static Spaces spaces(const Config& c, bool);
  BipedalWalkerEnv(const Config& c, int env_id, bool);
  ~BipedalWalkerEnv() override;

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;

 private:
  class Contacts;
  class Lidar;

  void destroy();
  void generate_terrain();
  void generate_clouds();
  b2Body* static_polygon(const std::array<std::array<double, 2>, 4>& poly);

  bool hardcore_;
  std::unique_ptr<Contacts> contacts_;
  std::unique_ptr<b2World> world_;  // one for the env's life, as Gymnasium's
  BipedalScene scene_;               // terrain, clouds, bodies and lidar as the renderer reads them
  std::vector<b2Body*> terrain_;     // Gymnasium's self.terrain (reversed after generation)
  b2Body* hull_ = nullptr;
  std::array<b2Body*, 4> legs_{};  // upper -1, lower -1, upper +1, lower +1
  std::array<b2RevoluteJoint*, 4> joints_{};
  std::array<bool, 4> ground_contact_{};  // legs_[1] and legs_[3] touch the ground
  bool game_over_ = false;
  bool has_prev_shaping_ = false;
  double prev_shaping_ = 0.0;
  std::array<float, 24> obs_{};
};

}  // namespace envhive::box2d
