// CarRacing-v3: gymnasium.envs.box2d.car_racing.CarRacing, step for step.
//
// The observation is the 96 x 96 frame Gymnasium draws with pygame at every step (its
// "state_pixels" render: the road and the car rotated and zoomed around the car on a 1000 x 800
// surface, the indicator bars, the reward as text, then pygame.transform.smoothscale), drawn here by
// the same rules (render/car_racing_scene.h). Like BipedalWalker, one Box2D world serves every
// episode; its friction detector (road tiles as sensors) counts visited tiles, pays 1000 / N for
// each, ends the lap, and recolours a tile when it is touched. The track is Gymnasium's, random
// checkpoints and retries included; domain_randomize draws the colours at each reset unless
// reset(options={"randomize": False}).
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <memory>
#include <vector>

#include "../../core/task.h"
#include "car_dynamics.h"
#include "render/car_racing_scene.h"

namespace envhive::box2d {

class CarRacingEnv final : public Env {
 public:
  static constexpr int kStateSize = 96, kVideoW = 600, kVideoH = 400, kFps = 50;

  static std::vector<ConfigField> config();
  static Spaces spaces(const Config& c);
  CarRacingEnv(const Config& c, int env_id);
  ~CarRacingEnv() override;

  void reset() override;
  StepResult step(const void* action) override;
  void write_obs(void* dst) const override;
  void write_info(void* const* dst) const override;
  void set_reset_option(const std::string& name, const std::vector<double>& values) override;
  void render(uint8_t* rgb, RenderSlot& slot) override;
  void enable_rendering() override { rendering_ = true; }

 private:
  class Friction;
  struct Tile : CarRacingBody {
    Tile() : CarRacingBody(Kind::kTile) {}
    b2Body* body = nullptr;
    int idx = 0;
    bool visited = false;
    std::array<double, 3> color{};  // Gymnasium's t.color: the friction detector overwrites it
  };

  void destroy();
  void reinit_colors();
  bool create_track();
  // The step after the controls are set (Gymnasium's step from car.step on).
  StepResult advance(bool has_action);
  void draw_state();

  bool continuous_, domain_randomize_;
  double lap_complete_percent_;
  bool rendering_ = false;
  bool randomize_next_ = true;  // reset option "randomize" (domain_randomize only)

  std::unique_ptr<Friction> friction_;
  std::unique_ptr<b2World> world_;  // one for the env's life, as Gymnasium's
  std::vector<std::unique_ptr<Tile>> road_;
  std::unique_ptr<Car> car_;
  CarRacingScene scene_;  // colours, road polygons, time: what the frames draw

  std::vector<std::array<double, 4>> track_;  // (alpha, beta, x, y) per tile
  double start_alpha_ = 0.0;
  double reward_ = 0.0, prev_reward_ = 0.0;
  int tile_visited_count_ = 0;
  bool new_lap_ = false;
  bool lap_finished_ = false;  // info["lap_finished"] of the last step
  std::vector<uint8_t> state_;  // the 96 x 96 x 3 observation
};

}  // namespace envhive::box2d
