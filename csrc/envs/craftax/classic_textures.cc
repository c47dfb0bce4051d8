#include "classic_textures.h"

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace envhive::craftax {

const RgbaImage& TextureSource::image(const std::string& name) const {
  auto it = images.find(name);
  if (it == images.end()) throw std::runtime_error("craftax texture '" + name + "' is missing from craftax's assets");
  return it->second;
}

const std::vector<float>& TextureSource::array(const std::string& name) const {
  auto it = arrays.find(name);
  if (it == arrays.end()) throw std::runtime_error("craftax texture array '" + name + "' was not loaded");
  return it->second;
}

TextureSource texture_source(const TextureFiles& files) {
  TextureSource out;
  for (const auto& [name, bytes] : files) {
    int32_t header[4];
    if (bytes.size() < sizeof(header)) throw std::runtime_error("craftax texture file '" + name + "' is truncated");
    std::memcpy(header, bytes.data(), sizeof(header));
    const auto [rows, cols, channels, dtype] = header;
    const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols) * static_cast<size_t>(channels);
    const size_t width = dtype == 0 ? 1 : 4;
    if (rows <= 0 || cols <= 0 || channels <= 0 || (dtype != 0 && dtype != 1) || bytes.size() != sizeof(header) + n * width)
      throw std::runtime_error("craftax texture file '" + name + "' has a bad header or size");
    const char* values = bytes.data() + sizeof(header);
    if (dtype == 1) {
      std::vector<float> a(n);
      std::memcpy(a.data(), values, n * width);
      out.arrays.emplace(name, std::move(a));
    } else {
      if (rows != cols || channels != 4) throw std::runtime_error("craftax texture " + name + " is not square RGBA");
      out.images.emplace(name, RgbaImage{rows, {values, values + n}});
    }
  }
  return out;
}

namespace {

std::mutex g_source_mu;  // guards both
std::function<TextureFiles()> g_files;
std::shared_ptr<const TextureSource> g_source;

// The textures, read from their files the first time (outside the lock: the resolver takes the
// GIL, which another thread may hold while it waits here); another thread's, if it won.
std::shared_ptr<const TextureSource> loaded_source() {
  std::function<TextureFiles()> files;
  {
    std::lock_guard<std::mutex> lock(g_source_mu);
    if (g_source) return g_source;
    files = g_files;
  }
  if (!files)
    throw std::runtime_error(
        "Craftax's pixel observations and frames draw with the craftax package's textures, which were not handed "
        "to this module (envhive loads them when a pixel task is made)");
  auto source = std::make_shared<const TextureSource>(texture_source(files()));
  if (source->images.empty())
    throw std::runtime_error(
        "Craftax's pixel observations and frames draw with the craftax package's textures, which are not installed: "
        "pip install --no-deps craftax==1.6.1 imageio pillow");
  std::lock_guard<std::mutex> lock(g_source_mu);
  if (!g_source) g_source = std::move(source);
  return g_source;
}

}  // namespace

void set_texture_files(std::function<TextureFiles()> files) {
  std::lock_guard<std::mutex> lock(g_source_mu);
  g_files = std::move(files);
  g_source.reset();
}

namespace {

enum class Alpha { kIgnore, kMultiply };  // RGB as stored, or RGB x alpha (alpha clamped to 0/1)

// load_texture(name, size)[:, :, :3], optionally times its clamped alpha (craftax's apply_alpha).
IntTile rgb(const TextureSource& src, const std::string& stem, int size, Alpha alpha = Alpha::kIgnore) {
  const RgbaImage& im = src.image("classic/" + stem + "/" + std::to_string(size));
  IntTile t{size, std::vector<int32_t>(static_cast<size_t>(size) * size * 3)};
  for (int r = 0; r < size; ++r)
    for (int c = 0; c < size; ++c)
      for (int k = 0; k < 3; ++k)
        t.v[(static_cast<size_t>(r) * size + c) * 3 + k] =
            im.at(r, c, k) * (alpha == Alpha::kMultiply ? im.at(r, c, 3) / 255 : 1);
  return t;
}

// The clamped alpha (0 or 1) repeated over 3 channels.
IntTile clamped_alpha(const TextureSource& src, const std::string& stem, int size) {
  const RgbaImage& im = src.image("classic/" + stem + "/" + std::to_string(size));
  IntTile t{size, std::vector<int32_t>(static_cast<size_t>(size) * size * 3)};
  for (int r = 0; r < size; ++r)
    for (int c = 0; c < size; ++c)
      for (int k = 0; k < 3; ++k) t.v[(static_cast<size_t>(r) * size + c) * 3 + k] = im.at(r, c, 3) / 255;
  return t;
}

// The unclamped alpha as float32 alpha / 255 (load_texture(..., clamp_alpha=False)).
FloatTile float_alpha(const TextureSource& src, const std::string& stem, int size) {
  const RgbaImage& im = src.image("classic/" + stem + "/" + std::to_string(size));
  FloatTile t{size, std::vector<float>(static_cast<size_t>(size) * size * 3)};
  for (int r = 0; r < size; ++r)
    for (int c = 0; c < size; ++c)
      for (int k = 0; k < 3; ++k)
        t.v[(static_cast<size_t>(r) * size + c) * 3 + k] = static_cast<float>(im.at(r, c, 3)) / 255.0f;
  return t;
}

// craftax's block texture files, by BlockType (OUT_OF_BOUNDS is a flat 128 grey instead).
constexpr const char* kBlockFiles[kClassicBlockTypes] = {
    "debug_tile", "debug_tile", "grass", "water", "stone", "tree", "wood", "path", "coal",
    "iron", "diamond", "table", "furnace", "sand", "lava", "plant_on_grass", "ripe_plant_on_grass"};

std::shared_ptr<const ClassicTextures> build(const TextureSource& src, int block) {
  auto t = std::make_shared<ClassicTextures>();
  t->block = block;
  t->small = static_cast<int>(block * 0.8);
  t->digit = static_cast<int>(block * 0.6);
  for (int b = 0; b < kClassicBlockTypes; ++b) {
    t->blocks[b] = rgb(src, kBlockFiles[b], block);
    t->small_blocks[b] = rgb(src, kBlockFiles[b], t->small);
  }
  for (auto* tiles : {&t->blocks[kOutOfBounds], &t->small_blocks[kOutOfBounds]})
    for (auto& v : tiles->v) v = 128;
  const char* players[5] = {"player-left", "player-right", "player-up", "player-down", "player-sleep"};
  for (int i = 0; i < 5; ++i) {
    t->player[i] = rgb(src, players[i], block);
    t->player_alpha[i] = float_alpha(src, players[i], block);
  }
  t->zombie = rgb(src, "zombie", block);
  t->zombie_alpha = float_alpha(src, "zombie", block);
  t->cow = rgb(src, "cow", block);
  t->cow_alpha = float_alpha(src, "cow", block);
  t->skeleton = rgb(src, "skeleton", block);
  t->skeleton_alpha = float_alpha(src, "skeleton", block);
  t->arrow = rgb(src, "arrow-up", block, Alpha::kMultiply);
  t->arrow_alpha = clamped_alpha(src, "arrow-up", block);
  t->digits[0] = t->digit_alpha[0] = IntTile{t->digit, std::vector<int32_t>(static_cast<size_t>(t->digit) * t->digit * 3)};
  for (int d = 1; d < 10; ++d) {
    t->digits[d] = rgb(src, std::to_string(d), t->digit, Alpha::kMultiply);
    t->digit_alpha[d] = clamped_alpha(src, std::to_string(d), t->digit);
  }
  const int s = t->small;
  t->health = rgb(src, "health", s);
  t->food = rgb(src, "food", s);
  t->drink = rgb(src, "drink", s);
  t->energy = rgb(src, "energy", s);
  t->sapling = rgb(src, "sapling", s);
  t->wood_pickaxe = rgb(src, "wood_pickaxe", s);
  t->stone_pickaxe = rgb(src, "stone_pickaxe", s, Alpha::kMultiply);
  t->iron_pickaxe = rgb(src, "iron_pickaxe", s, Alpha::kMultiply);
  t->wood_sword = rgb(src, "wood_sword", s, Alpha::kMultiply);
  t->stone_sword = rgb(src, "stone_sword", s, Alpha::kMultiply);
  t->iron_sword = rgb(src, "iron_sword", s, Alpha::kMultiply);
  t->night_noise = src.array("classic/night_noise/" + std::to_string(block));
  if (t->night_noise.size() != static_cast<size_t>(7 * block) * (9 * block))
    throw std::runtime_error("craftax: the night-noise texture has the wrong size");
  return t;
}

}  // namespace

std::shared_ptr<const ClassicTextures> classic_textures(int block) {
  static std::mutex mu;
  static std::map<int, std::shared_ptr<const ClassicTextures>> built;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = built.find(block);
    if (it != built.end()) return it->second;
  }
  const auto source = loaded_source();
  std::lock_guard<std::mutex> lock(mu);
  auto it = built.find(block);
  if (it != built.end()) return it->second;
  return built[block] = build(*source, block);
}

}  // namespace envhive::craftax
