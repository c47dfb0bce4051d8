// LunarLander-v3's render(): Gymnasium 1.4's drawing code step for step on the pygame rasterizer
// (csrc/envs/pygame/canvas.h), with Box2D's float32 transforms computed as pybox2d computes them.
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <cstdint>
#include <vector>

namespace envhive::box2d {

struct LunarLanderScene {
  struct Particle {
    const b2Body* body;
    double ttl;  // already aged by this frame
  };
  const std::vector<std::array<std::array<double, 2>, 4>>* sky_polys = nullptr;
  double helipad_x1 = 0, helipad_x2 = 0, helipad_y = 0;
  std::vector<Particle> particles;  // oldest first
  const b2Body* lander = nullptr;
  std::array<b2Body*, 2> legs{};
};

// The 600 x 400 frame (rows top first).
void draw_lunar_lander(uint8_t* rgb, const LunarLanderScene& scene);

}  // namespace envhive::box2d
