// crafter's textures: its assets/*.png as imageio reads them (RGB or RGBA), kept transposed to
// (x, y) order as crafter's Textures does, and scaled to a cell's size the way its PIL nearest
// resize does.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace envhive::crafter {

struct Texture {
  int w = 0, h = 0, channels = 0;  // w along x (the first axis), h along y
  std::vector<uint8_t> data;       // data[(x * h + y) * channels + c]
  const uint8_t* at(int x, int y) const { return &data[(static_cast<size_t>(x) * h + y) * channels]; }
};

// The textures of the installed crafter package, by file stem ("grass", "player-left", "7", ...).
class TextureSet {
 public:
  // `rows_first`: the image as imageio.v3.imread returns it, height x width x channels.
  void add(const std::string& name, int height, int width, int channels, const uint8_t* rows_first);
  const Texture& get(const std::string& name) const;
  bool empty() const { return textures_.empty(); }

 private:
  std::map<std::string, Texture> textures_;
};

// PIL's Image.resize(..., NEAREST) of a texture to sx x sy cells: each output index maps to the
// source index int(scale * (i + 0.5)), accumulated in float64 as Pillow's ImagingScaleAffine does.
Texture resize_nearest(const Texture& src, int sx, int sy);

// Texture files as envhive.families.crafter.texture_files() writes them: {file stem, contents},
// each an int32 header (rows, columns, channels) and the uint8 image, rows first.
using TextureFiles = std::vector<std::pair<std::string, std::string>>;

// The textures, read from their files the first time a task is made: from the family's resolver
// (the module) or a folder (the loop bench). Outside any lock: the resolver takes the GIL.
class TextureLoader {
 public:
  explicit TextureLoader(std::function<TextureFiles()> files) : files_(std::move(files)) {}
  std::shared_ptr<const TextureSet> get() const;

 private:
  std::function<TextureFiles()> files_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const TextureSet> set_;
};

}  // namespace envhive::crafter
