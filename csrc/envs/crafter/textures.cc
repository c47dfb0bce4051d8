#include "textures.h"

#include <cstring>
#include <stdexcept>

namespace envhive::crafter {

void TextureSet::add(const std::string& name, int height, int width, int channels, const uint8_t* rows_first) {
  if (channels != 3 && channels != 4)
    throw std::invalid_argument("crafter texture '" + name + "' has " + std::to_string(channels) + " channels");
  Texture t;
  t.w = width;  // crafter transposes (rows, columns) to (x, y)
  t.h = height;
  t.channels = channels;
  t.data.resize(static_cast<size_t>(height) * width * channels);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      for (int k = 0; k < channels; ++k)
        t.data[(static_cast<size_t>(c) * height + r) * channels + k] =
            rows_first[(static_cast<size_t>(r) * width + c) * channels + k];
  textures_[name] = std::move(t);
}

const Texture& TextureSet::get(const std::string& name) const {
  auto it = textures_.find(name);
  if (it == textures_.end()) throw std::runtime_error("crafter has no texture '" + name + "'");
  return it->second;
}

namespace {

// Pillow's pretabulated source positions along one axis of a nearest-neighbour scale.
std::vector<int> nearest_index(int src, int dst) {
  const double scale = static_cast<double>(static_cast<float>(src)) / dst;
  std::vector<int> index(dst);
  double pos = 0 + scale * 0.5;
  for (int i = 0; i < dst; ++i) {
    index[i] = pos < 0.0 ? -1 : static_cast<int>(pos);
    if (index[i] >= src) index[i] = src - 1;
    pos += scale;
  }
  return index;
}

}  // namespace

Texture resize_nearest(const Texture& src, int sx, int sy) {
  if (sx <= 0 || sy <= 0) throw std::invalid_argument("crafter: a texture cannot be scaled to an empty cell");
  Texture out;
  out.w = sx;
  out.h = sy;
  out.channels = src.channels;
  out.data.resize(static_cast<size_t>(sx) * sy * src.channels);
  // PIL sees the transposed array as an image of height w and width h.
  const std::vector<int> xs = nearest_index(src.w, sx), ys = nearest_index(src.h, sy);
  for (int x = 0; x < sx; ++x)
    for (int y = 0; y < sy; ++y) {
      const uint8_t* from = src.at(xs[x], ys[y]);
      for (int k = 0; k < src.channels; ++k) out.data[(static_cast<size_t>(x) * sy + y) * src.channels + k] = from[k];
    }
  return out;
}

std::shared_ptr<const TextureSet> TextureLoader::get() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (set_) return set_;
  }
  auto set = std::make_shared<TextureSet>();
  for (const auto& [name, bytes] : files_()) {
    int32_t header[3];
    if (bytes.size() < sizeof(header)) throw std::runtime_error("crafter texture file '" + name + "' is truncated");
    std::memcpy(header, bytes.data(), sizeof(header));
    const auto [rows, cols, channels] = header;
    if (rows <= 0 || cols <= 0 || bytes.size() != sizeof(header) + static_cast<size_t>(rows) * cols * channels)
      throw std::runtime_error("crafter texture file '" + name + "' has a bad header or size");
    set->add(name, rows, cols, channels, reinterpret_cast<const uint8_t*>(bytes.data() + sizeof(header)));
  }
  if (set->empty()) throw std::runtime_error("crafter: no textures were found in the crafter package's assets");
  std::lock_guard<std::mutex> lock(mu_);
  if (!set_) set_ = std::move(set);
  return set_;
}

}  // namespace envhive::crafter
