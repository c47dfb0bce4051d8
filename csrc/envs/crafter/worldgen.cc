// crafter's generate_world: terrain from OpenSimplex noise, then cows, zombies and skeletons, in
// crafter's cell order and with its random draws (each `uniform() > p` drawn only when the
// conditions before it hold).
#include <cmath>
#include <initializer_list>
#include <utility>
#include <vector>

#include "game.h"
#include "numerics.h"
#include "simplex_noise.h"

namespace envhive::crafter {

namespace {

// crafter's _simplex: noise summed over (size, weight) octaves, divided by the weights' sum.
double octaves(const SimplexNoise& noise, double x, double y, double z,
               std::initializer_list<std::pair<double, double>> sizes, bool normalize = true) {
  double value = 0, total = 0;
  for (const auto& [size, weight] : sizes) {
    value += weight * noise.noise3(x / size, y / size, z);
    total += weight;
  }
  return normalize ? value / total : value;
}

double single(const SimplexNoise& noise, double x, double y, double z, double size) {
  return octaves(noise, x, y, z, {{size, 1.0}});
}

}  // namespace

void Game::generate_world() {
  RandomState& rnd = world.random;
  const SimplexNoise noise(rnd.randint(0, (int64_t{1} << 31) - 1));
  const Pos center = player_pos();
  const int w = world.width(), h = world.height();
  std::vector<uint8_t> tunnels(static_cast<size_t>(w) * h, 0);
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < h; ++y) {
      const double fx = x, fy = y;
      const int64_t ox = x - center.x, oy = y - center.y;
      double start = 4 - std::sqrt(static_cast<double>(ox * ox + oy * oy));
      start += 2 * single(noise, fx, fy, 8, 3);
      start = 1 / (1 + numpy_exp(-start));
      double water = octaves(noise, fx, fy, 3, {{15, 1}, {5, 0.15}}, false) + 0.1;
      water -= 2 * start;
      double mountain = octaves(noise, fx, fy, 0, {{15, 1}, {5, 0.3}});
      mountain -= 4 * start + 0.3 * water;
      Material m;
      if (start > 0.5) {
        m = kGrass;
      } else if (mountain > 0.15) {
        if (single(noise, fx, fy, 6, 7) > 0.15 && mountain > 0.3) {  // cave
          m = kPath;
        } else if (single(noise, 2 * fx, fy / 5, 7, 3) > 0.4) {  // horizontal tunnel
          m = kPath;
          tunnels[static_cast<size_t>(x) * h + y] = 1;
        } else if (single(noise, fx / 5, 2 * fy, 7, 3) > 0.4) {  // vertical tunnel
          m = kPath;
          tunnels[static_cast<size_t>(x) * h + y] = 1;
        } else if (single(noise, fx, fy, 1, 8) > 0 && rnd.random_sample() > 0.85) {
          m = kCoal;
        } else if (single(noise, fx, fy, 2, 6) > 0.4 && rnd.random_sample() > 0.75) {
          m = kIron;
        } else if (mountain > 0.18 && rnd.random_sample() > 0.994) {
          m = kDiamond;
        } else if (mountain > 0.3 && single(noise, fx, fy, 6, 5) > 0.35) {
          m = kLava;
        } else {
          m = kStone;
        }
      } else if (0.25 < water && water <= 0.35 && single(noise, fx, fy, 4, 9) > -0.2) {
        m = kSand;
      } else if (0.3 < water) {
        m = kWater;
      } else if (single(noise, fx, fy, 5, 7) > 0 && rnd.random_sample() > 0.8) {
        m = kTree;
      } else {
        m = kGrass;
      }
      world.set_material({x, y}, m);
    }
  }
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < h; ++y) {
      const int64_t ox = x - center.x, oy = y - center.y;
      const double dist = std::sqrt(static_cast<double>(ox * ox + oy * oy));
      const Material m = world.material({x, y});
      if (m != kGrass && m != kSand && m != kPath) continue;
      Object obj;
      obj.pos = {x, y};
      if (dist > 3 && m == kGrass && rnd.random_sample() > 0.985) {
        obj.kind = Kind::kCow;
        obj.health = 3;
      } else if (dist > 10 && rnd.random_sample() > 0.993) {
        obj.kind = Kind::kZombie;
        obj.health = 5;
      } else if (m == kPath && tunnels[static_cast<size_t>(x) * h + y] && rnd.random_sample() > 0.95) {
        obj.kind = Kind::kSkeleton;
        obj.health = 3;
      } else {
        continue;
      }
      world.add(obj);
    }
  }
}

}  // namespace envhive::crafter
