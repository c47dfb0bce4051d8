// Craftax-Classic's pixel image (craftax_classic/renderer.py, make_craftax_pixel_renderer) as the
// jitted reference computes it on the CPU: the 7 x 9 block view with the player, mobs and arrows
// alpha-blended in, the night (static noise from the state's key, a tint, a blend by the light
// level), sleep's grey, and the two inventory rows below.
//
// XLA's CPU backend compiles each fusion with LLVM allowed to contract a multiply into the add that
// is its only use (fused multiply-add, one rounding). The compiled step (jax 0.10.2, its
// cpu_after_optimizations HLO and the kernels' object code) shows which: written out below as
// std::fma where XLA fuses; everything else rounds each operation, as the reference does.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "classic_pixels.h"

namespace envhive::craftax {

namespace {

constexpr int kViewX = 7, kViewY = 9;  // OBS_DIM

// out = fma(pixels, 1 - alpha, texture * alpha) over one block at (bx, by) of the map image: the
// player's and the mobs' alpha blend (the texture product is rounded on its own, the rest fused).
void blend_block(float* px, int cols, int block, int bx, int by, const IntTile& tex, const FloatTile& alpha) {
  for (int r = 0; r < block; ++r)
    for (int c = 0; c < block; ++c)
      for (int k = 0; k < 3; ++k) {
        const size_t t = (static_cast<size_t>(r) * block + c) * 3 + k;
        float& v = px[((static_cast<size_t>(bx) * block + r) * cols + by * block + c) * 3 + k];
        const float a = alpha.v[t];
        v = std::fma(v, 1.0f - a, static_cast<float>(tex.v[t]) * a);
      }
}

// An arrow's block: its texture (alpha 0 or 1, so exact) flipped and transposed by its direction.
void blend_arrow(float* px, int cols, const ClassicTextures& t, int bx, int by, Vec2 dir) {
  const int b = t.block;
  const bool flip = dir.x > 0 || dir.y > 0, transpose = dir.y != 0;
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      int sr = transpose ? c : r, sc = transpose ? r : c;
      if (flip) sr = b - 1 - sr;
      for (int k = 0; k < 3; ++k) {
        const size_t s = (static_cast<size_t>(sr) * b + sc) * 3 + k;
        float& v = px[((static_cast<size_t>(bx) * b + r) * cols + by * b + c) * 3 + k];
        v = v * static_cast<float>(1 - t.arrow_alpha.v[s]) + static_cast<float>(t.arrow.v[s] * t.arrow_alpha.v[s]);
      }
    }
}

void draw_mobs(float* px, int cols, const ClassicTextures& t, const ClassicState& s, const Mobs& mobs,
               const IntTile* tex, const FloatTile* alpha, bool arrows) {
  for (size_t i = 0; i < mobs.mask.size(); ++i) {
    const Vec2 local = mobs.position[i] - s.player + Vec2{kViewX / 2, kViewY / 2};
    if (!mobs.mask[i] || local.x < 0 || local.x >= kViewX || local.y < 0 || local.y >= kViewY) continue;
    if (arrows) blend_arrow(px, cols, t, local.x, local.y, s.arrow_directions[i]);
    else blend_block(px, cols, t.block, local.x, local.y, *tex, *alpha);
  }
}

// The two inventory rows: integers throughout (icons set, digits multiplied in by 1 - alpha and
// added), so exact in any order.
void draw_inventory(int32_t* inv, int cols, const ClassicTextures& t, const ClassicState& s) {
  const int b = t.block, small = t.small, left = (b - small) / 2 - 1, digit_at = b - t.digit - 1;
  std::memset(inv, 0, sizeof(int32_t) * static_cast<size_t>(2 * b) * cols * 3);
  auto slot = [&](int x, int y, int32_t value, const IntTile& icon) {
    for (int r = 0; r < small; ++r)
      for (int c = 0; c < small; ++c)
        for (int k = 0; k < 3; ++k)
          inv[((static_cast<size_t>(y) * b + left + r) * cols + x * b + left + c) * 3 + k] =
              value > 0 ? icon.v[(static_cast<size_t>(r) * small + c) * 3 + k] : 0;
    const int d = std::clamp(value, 0, 9);
    for (int r = 0; r < t.digit; ++r)
      for (int c = 0; c < t.digit; ++c)
        for (int k = 0; k < 3; ++k) {
          const size_t g = (static_cast<size_t>(r) * t.digit + c) * 3 + k;
          int32_t& v = inv[((static_cast<size_t>(y) * b + digit_at + r) * cols + x * b + digit_at + c) * 3 + k];
          v = v * (1 - t.digit_alpha[d].v[g]) + t.digits[d].v[g];
        }
  };
  const auto& inv_of = s.inventory;
  slot(0, 0, s.health, t.health);
  slot(1, 0, s.food, t.food);
  slot(2, 0, s.drink, t.drink);
  slot(3, 0, s.energy, t.energy);
  slot(5, 0, inv_of[kWoodItem], t.small_blocks[kWood]);
  slot(6, 0, inv_of[kStoneItem], t.small_blocks[kStone]);
  slot(7, 0, inv_of[kCoalItem], t.small_blocks[kCoal]);
  slot(8, 0, inv_of[kIronItem], t.small_blocks[kIron]);
  slot(0, 1, inv_of[kDiamondItem], t.small_blocks[kDiamond]);
  slot(4, 0, inv_of[kSapling], t.sapling);
  slot(1, 1, inv_of[kWoodPickaxe], t.wood_pickaxe);
  slot(2, 1, inv_of[kStonePickaxe], t.stone_pickaxe);
  slot(3, 1, inv_of[kIronPickaxe], t.iron_pickaxe);
  slot(4, 1, inv_of[kWoodSword], t.wood_sword);
  slot(5, 1, inv_of[kStoneSword], t.stone_sword);
  slot(6, 1, inv_of[kIronSword], t.iron_sword);
}

}  // namespace

void classic_pixels(const ClassicState& s, const ClassicParams& p, const ClassicTextures& t, float daylight,
                    const PixelKernel& kernel, bool normalise, float* out, PixelScratch& scratch) {
  const int b = t.block, rows = kViewX * b, cols = kViewY * b;
  std::vector<float>& map = scratch.map;
  map.resize(static_cast<size_t>(rows) * cols * 3);
  // The blocks in view (outside the world: OUT_OF_BOUNDS), each a tile of integers.
  for (int vx = 0; vx < kViewX; ++vx)
    for (int vy = 0; vy < kViewY; ++vy) {
      const Vec2 v{s.player.x - kViewX / 2 + vx, s.player.y - kViewY / 2 + vy};
      const uint8_t block = classic::in_bounds(p, v) ? s.map[static_cast<size_t>(v.x) * p.height + v.y] : kOutOfBounds;
      const IntTile& tile = t.blocks[block];
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
          for (int k = 0; k < 3; ++k)
            map[((static_cast<size_t>(vx) * b + r) * cols + vy * b + c) * 3 + k] =
                static_cast<float>(tile.v[(static_cast<size_t>(r) * b + c) * 3 + k]);
    }
  const int player_texture = s.sleeping ? 4 : s.direction - 1;
  blend_block(map.data(), cols, b, kViewX / 2, kViewY / 2, t.player[player_texture], t.player_alpha[player_texture]);
  draw_mobs(map.data(), cols, t, s, s.zombies, &t.zombie, &t.zombie_alpha, false);
  draw_mobs(map.data(), cols, t, s, s.cows, &t.cow, &t.cow_alpha, false);
  draw_mobs(map.data(), cols, t, s, s.skeletons, &t.skeleton, &t.skeleton_alpha, false);
  draw_mobs(map.data(), cols, t, s, s.arrows, nullptr, nullptr, true);

  // Night: below half light, static noise (uniform draws of the state's key) faded in away from
  // the centre; then greyed, tinted and blended in by the light level; asleep, all greyed.
  const bool night = daylight < 0.5f;
  const float static_intensity = std::max(2.0f * (0.5f - daylight), 0.0f);
  const float dark = 1.0f - daylight;
  constexpr float kTint[3] = {0.0f, 8.0f, 32.0f};  // 0.5 * (0, 16, 64)
  for (int x = 0; x < rows; ++x)
    for (int y = 0; y < cols; ++y) {
      float* m = &map[(static_cast<size_t>(x) * cols + y) * 3];
      float n[3] = {m[0], m[1], m[2]};
      if (night) {
        const size_t cell = static_cast<size_t>(x) * cols + y;
        const float noise = std::fma(uniform01(s.state_rng, cell), 95.0f, 32.0f);
        const float mask = static_intensity * t.night_noise[cell];
        for (int k = 0; k < 3; ++k) n[k] = std::fma(mask, noise, (1.0f - mask) * m[k]);
      }
      const float lum = std::fma(n[2], 0.114f, std::fma(n[0], 0.299f, n[1] * 0.587f)) * 0.6f;
      float day[3], plain[3];  // the blend as XLA's vector loop has it, and with every product fused alike
      for (int k = 0; k < 3; ++k) {
        const float tinted = std::fma(std::fma(n[k], 0.4f, lum), 0.5f, kTint[k]);
        plain[k] = std::fma(m[k], daylight, dark * tinted);
        day[k] = k == 0 && kernel.red_shared ? std::fma(tinted, dark, m[k] * daylight) : plain[k];
      }
      if (!s.sleeping) {
        std::memcpy(m, day, sizeof(day));
        continue;
      }
      // Asleep: 0.5 * luminance + (0, 0, 8). In the loop's scalar tail each channel is computed on
      // its own, and only the red one sees the shared product.
      const bool tail = y >= kernel.tail_from;
      const float* green_blue_from = tail ? plain : day;
      const float grey_red = std::fma(day[2], 0.114f, std::fma(day[0], 0.299f, day[1] * 0.587f));
      const float grey = std::fma(green_blue_from[2], 0.114f,
                                  std::fma(green_blue_from[0], 0.299f, green_blue_from[1] * 0.587f));
      m[0] = grey_red * 0.5f;
      m[1] = grey * 0.5f;
      m[2] = grey * 0.5f + 8.0f;
    }
  std::vector<int32_t>& inv = scratch.inventory;
  inv.resize(static_cast<size_t>(2 * b) * cols * 3);
  draw_inventory(inv.data(), cols, t, s);
  const size_t map_values = map.size();
  if (!normalise) {
    std::memcpy(out, map.data(), sizeof(float) * map_values);
    for (size_t i = 0; i < inv.size(); ++i) out[map_values + i] = static_cast<float>(inv[i]);
    return;
  }
  // pixels / 255: XLA multiplies by the float32 reciprocal.
  const float scale = 1.0f / 255.0f;
  for (size_t i = 0; i < map_values; ++i) out[i] = map[i] * scale;
  for (size_t i = 0; i < inv.size(); ++i) out[map_values + i] = static_cast<float>(inv[i]) * scale;
}

}  // namespace envhive::craftax
