// Craftax-Classic's textures at one block size, derived from the installed craftax package's
// images as craftax_classic/constants.py's load_all_textures_given_size derives them: block tiles,
// the player, mobs and arrow with their alpha, the inventory icons and digits, the night tint and
// the night-static intensity. The images themselves (decoded and scaled with imageio and Pillow,
// as craftax does) come from Python at import (envhive.families.craftax.textures()).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "classic_world.h"

namespace envhive::craftax {

// An RGBA image from Python: rows first, 4 bytes per pixel (craftax's imread(mode="RGBA")).
struct RgbaImage {
  int size = 0;  // square
  std::vector<uint8_t> rgba;
  int at(int r, int c, int k) const { return rgba[(static_cast<size_t>(r) * size + c) * 4 + k]; }
};

// The images and arrays the family's Python side decoded, by name ("classic/grass/7",
// "classic/night_noise/7").
struct TextureSource {
  std::map<std::string, RgbaImage> images;
  std::map<std::string, std::vector<float>> arrays;
  const RgbaImage& image(const std::string& name) const;
  const std::vector<float>& array(const std::string& name) const;
};

// Texture files as envhive.families.craftax.texture_files() writes them: {name, contents}, each an
// int32 header (rows, columns, channels, dtype: 0 uint8, 1 float32) and the values, rows first.
using TextureFiles = std::vector<std::pair<std::string, std::string>>;
TextureSource texture_source(const TextureFiles& files);

// Where the textures come from: the family's resolver (the module) or a folder (the loop bench).
// Called the first time a pixel task is made, outside any lock (the resolver takes the GIL).
void set_texture_files(std::function<TextureFiles()> files);

// A size x size x 3 tile of int32 values (craftax keeps most textures as int32 arrays), or of
// float32 ones (the alpha channels craftax divides by 255).
struct IntTile {
  int size = 0;
  std::vector<int32_t> v;  // [(r * size + c) * 3 + k]
};
struct FloatTile {
  int size = 0;
  std::vector<float> v;
};

struct ClassicTextures {
  int block = 0, small = 0, digit = 0;  // block, int(0.8 * block), int(0.6 * block)
  std::array<IntTile, kClassicBlockTypes> blocks, small_blocks;
  std::array<IntTile, 5> player;       // left, right, up, down, sleep: RGB
  std::array<FloatTile, 5> player_alpha;  // alpha / 255 (float32), repeated over the 3 channels
  IntTile zombie, cow, skeleton;
  FloatTile zombie_alpha, cow_alpha, skeleton_alpha;
  IntTile arrow, arrow_alpha;          // arrow-up, RGB x alpha (0 or 1), and its alpha
  std::array<IntTile, 10> digits, digit_alpha;  // 0 is blank
  // Inventory icons, in craftax's inventory slots: RGB only or RGB x alpha as craftax has them.
  IntTile health, food, drink, energy, sapling, wood_pickaxe, stone_pickaxe, iron_pickaxe, wood_sword,
      stone_sword, iron_sword;
  std::vector<float> night_noise;  // (7 block) x (9 block), float32
};

// The textures at `block` (7: the observation, 64: render()). Built once per process and size.
std::shared_ptr<const ClassicTextures> classic_textures(int block);

}  // namespace envhive::craftax
