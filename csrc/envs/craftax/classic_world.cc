#include "classic_world.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "xla_cumsum.h"

namespace envhive::craftax {

namespace {

// craftax's Perlin interpolant t^3 (t (6 t - 15) + 10), in float32 without contraction (XLA keeps
// these as separate multiplies and adds here; the grid's values make them exact anyway).
float interpolant(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

// A key of the chain `rng, _rng = jax.random.split(rng)`: advances rng, returns _rng.
Key next(Key& rng) {
  const Key sub = split_at(rng, 1);
  rng = split_at(rng, 0);
  return sub;
}

}  // namespace

void perlin_noise(Key key, int width, int height, int rx, int ry, std::vector<float>& out) {
  const Key angle_key = split_at(key, 1);
  const int dx = width / rx, dy = height / ry;
  const auto delta_x = static_cast<float>(static_cast<double>(rx) / width);
  const auto delta_y = static_cast<float>(static_cast<double>(ry) / height);
  std::vector<float> cosines((rx + 1) * (ry + 1)), sines(cosines.size());
  for (size_t i = 0; i < cosines.size(); ++i) {
    const float angle = 6.2831855f * uniform01(angle_key, i);  // 2 * pi as float32, times uniform
    cosines[i] = std::cos(angle);  // XLA's CPU cos/sin of float32 are glibc's cosf/sinf
    sines[i] = std::sin(angle);
  }
  const float sqrt2 = std::sqrt(2.0f);
  out.resize(static_cast<size_t>(width) * height);
  for (int i = 0; i < width; ++i) {
    const float x = std::fmod(static_cast<float>(i) * delta_x, 1.0f);
    const float tx = interpolant(x);
    for (int j = 0; j < height; ++j) {
      const float y = std::fmod(static_cast<float>(j) * delta_y, 1.0f);
      const float ty = interpolant(y);
      // The gradients are repeated dx (dy) times per lattice point; g10 is dx cells further on.
      auto grad = [&](int oi, int oj, float gx, float gy) {
        const size_t g = static_cast<size_t>((i + oi * dx) / dx) * (ry + 1) + (j + oj * dy) / dy;
        return gx * cosines[g] + gy * sines[g];
      };
      const float n00 = grad(0, 0, x, y), n10 = grad(1, 0, x - 1.0f, y);
      const float n01 = grad(0, 1, x, y - 1.0f), n11 = grad(1, 1, x - 1.0f, y - 1.0f);
      const float n0 = n00 * (1.0f - tx) + tx * n10;
      const float n1 = n01 * (1.0f - tx) + tx * n11;
      out[static_cast<size_t>(i) * height + j] = sqrt2 * ((1.0f - ty) * n0 + ty * n1);
    }
  }
}

void fractal_noise(Key key, int width, int height, int rx, int ry, std::vector<float>& out) {
  perlin_noise(split_at(key, 1), width, height, rx, ry, out);
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end());
  const float min = *lo, range = *hi - *lo;
  for (float& v : out) v = (v - min) / range;
}

ClassicWorld generate_classic_world(Key rng, int width, int height, bool always_diamond) {
  ClassicWorld w;
  w.width = width;
  w.height = height;
  const size_t cells = static_cast<size_t>(width) * height;
  w.map.assign(cells, kGrass);
  const int px = width / 2, py = height / 2;
  std::vector<float> proximity(cells);
  for (int i = 0; i < width; ++i)
    for (int j = 0; j < height; ++j)
      proximity[static_cast<size_t>(i) * height + j] =
          std::clamp(static_cast<float>(std::abs(i - px) + std::abs(j - py)) / 5.0f, 0.0f, 1.0f);

  std::vector<float> water, mountain, path_x, tree_noise;
  fractal_noise(next(rng), width, height, width / 16, height / 16, water);
  for (size_t c = 0; c < cells; ++c) water[c] = water[c] + proximity[c] - 1.0f;
  next(rng);
  auto& map = w.map;
  for (size_t c = 0; c < cells; ++c) {
    map[c] = water[c] > 0.7f ? kWater : kGrass;
    if (water[c] < 0.75f && water[c] > 0.6f && map[c] != kWater) map[c] = kSand;
  }
  fractal_noise(next(rng), width, height, width / 16, height / 16, mountain);
  for (size_t c = 0; c < cells; ++c) {
    mountain[c] = mountain[c] + 0.05f + proximity[c] - 1.0f;
    if (mountain[c] > 0.7f) map[c] = kStone;
  }
  fractal_noise(next(rng), width, height, width / 8, height / 2, path_x);
  for (int i = 0; i < width; ++i)
    for (int j = 0; j < height; ++j) {
      const size_t c = static_cast<size_t>(i) * height + j;
      if (mountain[c] > 0.7f && path_x[c] > 0.8f) map[c] = kPath;
    }
  for (int i = 0; i < width; ++i)  // path_y = path_x.T (the map is square)
    for (int j = 0; j < height; ++j) {
      const size_t c = static_cast<size_t>(i) * height + j;
      if (mountain[c] > 0.7f && path_x[static_cast<size_t>(j) * height + i] > 0.8f) map[c] = kPath;
    }
  next(rng);
  for (size_t c = 0; c < cells; ++c)
    if (mountain[c] > 0.85f && water[c] > 0.4f) map[c] = kPath;
  const Key coal = next(rng);
  for (size_t c = 0; c < cells; ++c)
    if (map[c] == kStone && uniform01(coal, c) < 0.04f) map[c] = kCoal;
  const Key iron = next(rng);
  for (size_t c = 0; c < cells; ++c)
    if (map[c] == kStone && uniform01(iron, c) < 0.03f) map[c] = kIron;
  const Key diamond = next(rng);
  for (size_t c = 0; c < cells; ++c)
    if (mountain[c] > 0.8f && uniform01(diamond, c) < 0.005f && map[c] == kStone) map[c] = kDiamond;
  fractal_noise(next(rng), width, height, width / 4, height / 4, tree_noise);
  for (size_t c = 0; c < cells; ++c) {
    const float u = (tree_noise[c] > 0.5f ? 1.0f : 0.0f) * uniform01(rng, c);
    if (u > 0.8f && map[c] == kGrass) map[c] = kTree;
  }
  for (size_t c = 0; c < cells; ++c)
    if (mountain[c] > 0.85f && tree_noise[c] > 0.7f) map[c] = kLava;
  map[static_cast<size_t>(px) * height + py] = kGrass;

  std::vector<float> valid(cells), scratch;
  float count = 0.0f;
  for (size_t c = 0; c < cells; ++c) count += valid[c] = map[c] == kStone ? 1.0f : 0.0f;
  for (float& v : valid) v = v / count;
  const size_t index = choice_index(next(rng), valid.data(), cells, scratch);
  map[(index / width) * height + index % width] = always_diamond ? kDiamond : kStone;
  w.state_rng = next(rng);
  return w;
}

}  // namespace envhive::craftax
