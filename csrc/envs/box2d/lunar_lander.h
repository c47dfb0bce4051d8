// LunarLander-v3: gymnasium.envs.box2d.lunar_lander.LunarLander, step for step.
//
// The same Box2D world built in the same order (moon, lander, legs, joints; a new world per
// reset, as Gymnasium's fix for its issue 728 does), the same contact listener (the lander's body
// touching the moon ends the game; each leg's ground contact), the same np_random draws in the same
// order (terrain heights, the initial push, the wind and torque offsets, two dispersion draws per
// step) and the same double-precision Python arithmetic around Box2D's float32 values.
// reset() ends with one no-op step, as Gymnasium's does.
//
// Engine particles are Box2D bodies Gymnasium makes only when it renders (render_mode set): here
// too (enable_rendering). They collide with the moon only, so the lander's motion is the same with
// or without them; their time to live shrinks, and the expired ones are destroyed, at each frame
// drawn, as in Gymnasium's render().
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <deque>
#include <memory>
#include <vector>

#include "../../core/task.h"

namespace envhive::box2d {

class LunarLanderEnv final : public Env {
 public:
  static constexpr int kViewportW = 600, kViewportH = 400, kFps = 50;
  static constexpr double kScale = 30.0;

  // `continuous`: the default of the kwarg (LunarLanderContinuous-v3 registers true).
  static std::vector<ConfigField> config(bool continuous);
  static Spaces spaces(const Config& c, bool continuous);
  LunarLanderEnv(const Config& c, int env_id, bool continuous);
  ~LunarLanderEnv() override;

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void render(uint8_t* rgb, RenderSlot& slot) override;
  void enable_rendering() override { rendering_ = true; }

 private:
  class Contacts;
  struct Particle {
    b2Body* body;
    double ttl;
  };
  // The engines of one step, decoded from either action space.
  struct Engines {
    bool main = false, side = false;
    double m_power = 0.0, s_power = 0.0, direction = 0.0;
  };

  StepResult advance(const Engines& engines);
  void create_particle(double mass, double x, double y, double ttl, double impulse_x, double impulse_y);
  void clean_particles(bool all);

  // Config.
  bool continuous_, enable_wind_;
  double gravity_, wind_power_, turbulence_power_;
  bool rendering_ = false;

  // The episode's world (a new one per reset) and what the env holds of it.
  std::unique_ptr<Contacts> contacts_;
  std::unique_ptr<b2World> world_;
  b2Body* moon_ = nullptr;
  b2Body* lander_ = nullptr;
  std::array<b2Body*, 2> legs_{};
  std::array<bool, 2> ground_contact_{};
  bool game_over_ = false;
  bool has_prev_shaping_ = false;
  double prev_shaping_ = 0.0;
  int64_t wind_idx_ = 0, torque_idx_ = 0;
  double helipad_x1_ = 0.0, helipad_x2_ = 0.0, helipad_y_ = 0.0;
  std::vector<std::array<std::array<double, 2>, 4>> sky_polys_;  // the terrain's sky quads (render)
  std::deque<Particle> particles_;                             // oldest first (render only)
  std::array<float, 8> obs_{};
};

}  // namespace envhive::box2d
