// Craftax-Classic's world generation (craftax 1.6.1, craftax_classic/world_gen.py): the block map
// a reset draws from its key, with the same key splits, float32 Perlin noise and draws as the
// jitted reference computes them on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "jax_random.h"

namespace envhive::craftax {

// craftax_classic's BlockType values.
inline constexpr uint8_t kInvalid = 0, kOutOfBounds = 1, kGrass = 2, kWater = 3, kStone = 4, kTree = 5, kWood = 6,
                         kPath = 7, kCoal = 8, kIron = 9, kDiamond = 10, kCraftingTable = 11, kFurnace = 12,
                         kSand = 13, kLava = 14, kPlant = 15, kRipePlant = 16;
inline constexpr int kClassicBlockTypes = 17;

struct ClassicWorld {
  int width = 64, height = 64;  // StaticEnvParams.map_size
  std::vector<uint8_t> map;     // map[x * height + y], x the first axis as in craftax
  Key state_rng;                // EnvState.state_rng
};

// generate_world(key, EnvParams(), StaticEnvParams(map_size)) of the default params (random noise
// angles, always_diamond): the map and the state's key.
ClassicWorld generate_classic_world(Key key, int width = 64, int height = 64, bool always_diamond = true);

// generate_perlin_noise_2d(key, (width, height), (rx, ry)) with random gradient angles, row-major.
void perlin_noise(Key key, int width, int height, int rx, int ry, std::vector<float>& out);
// generate_fractal_noise_2d with one octave: the Perlin noise of split(key)[1], scaled to [0, 1].
void fractal_noise(Key key, int width, int height, int rx, int ry, std::vector<float>& out);

}  // namespace envhive::craftax
