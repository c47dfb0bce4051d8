#include "renderer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "numerics.h"
#include "rules.h"

namespace envhive::crafter {

namespace {

const char* material_texture(Material m) {
  static const char* const kNames[kNumMaterials] = {"unknown", "water", "grass", "stone", "path", "sand", "tree",
                                                    "lava", "coal", "iron", "diamond", "table", "furnace"};
  return kNames[m];
}

// numpy's linspace(-1, 1, n).
std::vector<double> linspace(int n) {
  std::vector<double> out(n);
  if (n == 1) return {-1.0};
  const double step = 2.0 / (n - 1);
  for (int i = 0; i < n; ++i) out[i] = static_cast<double>(i) * step + -1.0;
  out[n - 1] = 1.0;
  return out;
}

// crafter's _draw / _draw_alpha of a texture into a [x][y][3] canvas of height `canvas_h`: RGB
// textures are copied, RGBA ones blended in float32 and truncated.
void paste(uint8_t* canvas, int canvas_w, int canvas_h, int px, int py, const Texture& t, bool blend) {
  if (px < 0 || py < 0 || px + t.w > canvas_w || py + t.h > canvas_h)
    throw std::runtime_error("crafter: a texture does not fit the canvas (the view is too small for its size)");
  for (int x = 0; x < t.w; ++x)
    for (int y = 0; y < t.h; ++y) {
      const uint8_t* src = t.at(x, y);
      uint8_t* dst = canvas + (static_cast<size_t>(px + x) * canvas_h + (py + y)) * 3;
      if (t.channels == 4 && blend) {
        const float alpha = static_cast<float>(src[3]) / 255;
        for (int c = 0; c < 3; ++c) {
          const float tex = static_cast<float>(src[c]) / 255, cur = static_cast<float>(dst[c]) / 255;
          const float blended = alpha * tex + (1 - alpha) * cur;
          dst[c] = static_cast<uint8_t>(255 * blended);
        }
      } else {
        for (int c = 0; c < 3; ++c) dst[c] = src[c];
      }
    }
}

// Pillow's RGB -> L (ITU-R 601-2 luma, fixed point).
uint8_t luma(const uint8_t* rgb) { return static_cast<uint8_t>((rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >> 16); }

}  // namespace

Renderer::Renderer(const TextureSet& textures, int size_x, int size_y, int view_x, int view_y)
    : textures_(textures), size_x_(size_x), size_y_(size_y) {
  rows_ = item_rows(view_x);
  grid_x_ = view_x;
  grid_y_ = view_y - rows_;
  unit_x_ = size_x / view_x;
  unit_y_ = size_y / view_y;
  border_x_ = (size_x - unit_x_ * view_x) / 2;
  border_y_ = (size_y - unit_y_ * view_y) / 2;
  const int lw = grid_x_ * unit_x_, lh = grid_y_ * unit_y_;
  local_.resize(static_cast<size_t>(lw) * lh * 3);
  lit_.resize(local_.size());
  night_.resize(local_.size());
  inventory_.resize(static_cast<size_t>(grid_x_) * unit_x_ * rows_ * unit_y_ * 3);
  const std::vector<double> xs = linspace(lw), ys = linspace(lh);
  vignette_.resize(static_cast<size_t>(lw) * lh);
  for (int i = 0; i < lw; ++i)
    for (int j = 0; j < lh; ++j)
      vignette_[static_cast<size_t>(i) * lh + j] =
          1 - numpy_exp_element(-0.5 * (xs[i] * xs[i] + ys[j] * ys[j]) / 0.25, static_cast<size_t>(lw) * lh);
  const int ix = static_cast<int>(0.8 * unit_x_), iy = static_cast<int>(0.8 * unit_y_);
  const int ax = static_cast<int>(0.6 * unit_x_), ay = static_cast<int>(0.6 * unit_y_);
  for (int i = 0; i < kNumItems; ++i) items_[item_name(i)] = resize_nearest(textures_.get(item_name(i)), ix, iy);
  for (int n = 1; n <= 9; ++n) amounts_[std::to_string(n)] = resize_nearest(textures_.get(std::to_string(n)), ax, ay);
}

const Texture& Renderer::cell(const std::string& name) {
  auto it = scaled_.find(name);
  if (it == scaled_.end()) it = scaled_.emplace(name, resize_nearest(textures_.get(name), unit_x_, unit_y_)).first;
  return it->second;
}

void Renderer::draw_local_view(Game& game) {
  const int lw = grid_x_ * unit_x_, lh = grid_y_ * unit_y_;
  std::fill(local_.begin(), local_.end(), 127);
  const Pos center = game.player_pos();
  const Pos offset{grid_x_ / 2, grid_y_ / 2};
  for (int x = 0; x < grid_x_; ++x)
    for (int y = 0; y < grid_y_; ++y) {
      const Pos p = center + Pos{x, y} - offset;
      if (!game.world.inside(p)) continue;
      paste(local_.data(), lw, lh, x * unit_x_, y * unit_y_, cell(material_texture(game.world.material(p))), false);
    }
  for (uint32_t id = 1; id < game.world.objects_count(); ++id) {
    const Object& obj = game.world.object(id);
    if (obj.removed) continue;
    const Pos p = obj.pos - center + offset;
    if (p.x < 0 || p.x >= grid_x_ || p.y < 0 || p.y >= grid_y_) continue;
    const char* name = "unknown";
    switch (obj.kind) {
      case Kind::kPlayer:
        if (game.player.sleeping) {
          name = "player-sleep";
        } else {
          const Pos f = game.player.facing;
          name = f.x < 0 ? "player-left" : f.x > 0 ? "player-right" : f.y < 0 ? "player-up" : "player-down";
        }
        break;
      case Kind::kCow:
        name = "cow";
        break;
      case Kind::kZombie:
        name = "zombie";
        break;
      case Kind::kSkeleton:
        name = "skeleton";
        break;
      case Kind::kArrow:
        name = obj.facing.x < 0 ? "arrow-left" : obj.facing.x > 0 ? "arrow-right" : obj.facing.y < 0 ? "arrow-up"
                                                                                                    : "arrow-down";
        break;
      case Kind::kPlant:
        name = obj.grown > 300 ? "plant-ripe" : "plant";
        break;
    }
    paste(local_.data(), lw, lh, p.x * unit_x_, p.y * unit_y_, cell(name), true);
  }
}

void Renderer::apply_light(Game& game) {
  const double daylight = game.world.daylight;
  const size_t pixels = local_.size() / 3;
  if (daylight < 0.5) {
    const double amount = 2 * (0.5 - daylight);
    for (size_t i = 0; i < pixels; ++i) {
      const double noise = game.world.random.uniform(32, 127);
      const double mask = amount * vignette_[i];
      for (int c = 0; c < 3; ++c)
        night_[i * 3 + c] = static_cast<uint8_t>((1 - mask) * local_[i * 3 + c] + mask * noise);
    }
  } else {
    night_ = local_;
  }
  static constexpr double kTint[3] = {0, 16, 64};
  for (size_t i = 0; i < pixels; ++i) {
    const uint8_t* px = &night_[i * 3];
    const int gray = luma(px);
    for (int c = 0; c < 3; ++c) {
      // ImageEnhance.Color(...).enhance(0.4): Pillow's float blend of gray towards the colour.
      const auto enhanced = static_cast<uint8_t>(static_cast<float>(gray) + 0.4f * static_cast<float>(px[c] - gray));
      const double tinted = 0.5 * enhanced + 0.5 * kTint[c];
      lit_[i * 3 + c] = daylight * local_[i * 3 + c] + (1 - daylight) * tinted;
    }
  }
}

void Renderer::apply_sleep() {
  static constexpr double kTint[3] = {0, 0, 16};
  const size_t pixels = lit_.size() / 3;
  for (size_t i = 0; i < pixels; ++i) {
    uint8_t px[3];
    for (int c = 0; c < 3; ++c) px[c] = static_cast<uint8_t>(lit_[i * 3 + c]);
    const uint8_t gray = luma(px);
    for (int c = 0; c < 3; ++c) lit_[i * 3 + c] = 0.5 * gray + 0.5 * kTint[c];
  }
}

void Renderer::draw_items(const Player& player) {
  std::fill(inventory_.begin(), inventory_.end(), 0);
  const int w = grid_x_ * unit_x_, h = rows_ * unit_y_;
  for (int index = 0; index < kNumItems; ++index) {
    const int amount = player.inventory[index];
    if (amount < 1) continue;
    const int gx = index % grid_x_, gy = index / grid_x_;
    const auto at = [&](double frac, int& x, int& y) {
      x = static_cast<int>(static_cast<double>(gx * unit_x_) + frac * unit_x_);
      y = static_cast<int>(static_cast<double>(gy * unit_y_) + frac * unit_y_);
    };
    int x, y;
    at(0.1, x, y);
    paste(inventory_.data(), w, h, x, y, items_.at(item_name(index)), true);
    at(0.4, x, y);
    paste(inventory_.data(), w, h, x, y, amounts_.at(std::to_string(amount)), true);
  }
}

void Renderer::draw(Game& game, uint8_t* rgb) {
  draw_local_view(game);
  apply_light(game);
  if (game.player.sleeping) apply_sleep();
  draw_items(game.player);
  std::memset(rgb, 0, static_cast<size_t>(size_x_) * size_y_ * 3);
  const int lh = grid_y_ * unit_y_, ih = rows_ * unit_y_, w = grid_x_ * unit_x_;
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < lh + ih; ++y) {
      uint8_t* dst = rgb + (static_cast<size_t>(border_y_ + y) * size_x_ + (border_x_ + x)) * 3;
      if (y < lh) {
        const double* src = &lit_[(static_cast<size_t>(x) * lh + y) * 3];
        for (int c = 0; c < 3; ++c) dst[c] = static_cast<uint8_t>(src[c]);
      } else {
        const uint8_t* src = &inventory_[(static_cast<size_t>(x) * ih + (y - lh)) * 3];
        for (int c = 0; c < 3; ++c) dst[c] = src[c];
      }
    }
  }
}

}  // namespace envhive::crafter
