// BipedalWalker-v3's render(): Gymnasium 1.4's drawing code step for step on the pygame rasterizer.
// Gymnasium draws on a surface 600 + scroll * 30 pixels wide and returns its right-most 600
// columns; the canvas keeps only those, but every primitive clips to the whole surface.
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <cstdint>
#include <vector>

namespace envhive::box2d {

using Color = std::array<uint8_t, 3>;
using Point2 = std::array<double, 2>;

// What the renderer reads of a BipedalWalker env.
struct BipedalScene {
  struct Cloud {
    std::array<Point2, 5> poly;
    double x1, x2;  // its x extent (culling)
  };
  struct Body {
    const b2Body* body;
    Color color1, color2;
  };
  struct Ray {
    Point2 p1, p2;  // the ray's start and its end (its hit point, when it hit)
  };
  std::vector<Cloud> clouds;
  std::vector<std::array<Point2, 4>> terrain_poly;  // the ground under each terrain edge
  std::vector<Body> drawlist;                       // terrain, legs, hull
  std::array<Ray, 10> lidar{};
  double scroll = 0.0;
  int lidar_render = 0;  // which ray the next frame draws (Gymnasium advances it per frame)
};

// The 600 x 400 frame (rows top first); advances scene.lidar_render as Gymnasium's render() does.
void draw_bipedal_walker(uint8_t* rgb, BipedalScene& scene);

}  // namespace envhive::box2d
