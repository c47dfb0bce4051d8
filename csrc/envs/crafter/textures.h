// crafter's textures: its assets/*.png as imageio reads them (RGB or RGBA), kept transposed to
// (x, y) order as crafter's Textures does, and scaled to a cell's size the way its PIL nearest
// resize does.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
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

// The TextureSet the family's binding loaded at import (empty until then).
std::shared_ptr<TextureSet>& installed_textures();

}  // namespace envhive::crafter
