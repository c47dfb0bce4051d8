#include "scenes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "../../pygame/canvas.h"
#include "../../pygame/transform.h"

namespace envhive::toy_text {

namespace {

using pygame::Canvas;
using pygame::Rgb;

// Python's round() of a float: to nearest, ties to even.
int py_round(double v) { return static_cast<int>(std::nearbyint(v)); }

std::string image(const std::string& path) { return "toy_text/" + path; }

// Surface.blit(img, (x, y)) onto the opaque window surface (per-pixel alpha).
void blit(Canvas& cv, const RgbaImage& img, int x, int y, bool flip_x = false, bool flip_y = false) {
  cv.blit_alpha(img, x, y, flip_x, flip_y);
}

}  // namespace

const RgbaImage& Sprites::get(const std::string& name, int w, int h) {
  auto key = std::make_tuple(name, w, h);
  auto it = scaled_.find(key);
  if (it != scaled_.end()) return it->second;
  const std::shared_ptr<const RgbaImage> src = RenderImages::get().find(name);
  RgbaImage out = (w < 0 || (w == src->width && h == src->height)) ? *src : pygame::scale_nearest(*src, w, h);
  return scaled_.emplace(std::move(key), std::move(out)).first->second;
}

Sprites& sprites(RenderSlot& slot) {
  return slot.state<Sprites>([] { return std::make_unique<Sprites>(); });
}

std::vector<std::pair<std::string, std::string>> frozen_lake_images() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* f : {"tile_ice.png", "tile_hole.png", "tile_ice_crack_a.png", "tile_ice_crack_b.png", "agent.png",
                        "goal_flag.png", "letter_s.png", "letter_g.png"})
    out.emplace_back(image(f), f);
  return out;
}

std::vector<std::pair<std::string, std::string>> taxi_images() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* f : {"taxi_v", "taxi_h", "taxi_v_full", "taxi_h_full", "passenger", "marker_destination", "house",
                        "background"})
    out.emplace_back(image(std::string("taxi/") + f + ".png"), std::string("taxi/") + f + ".png");
  return out;
}

std::vector<std::pair<std::string, std::string>> cliff_walking_images() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* f : {"tile_ground", "tile_cliff_left", "tile_cliff_mid_a", "tile_cliff_mid_b", "tile_cliff_right",
                        "letter_s", "letter_g", "goal_flag", "agent"})
    out.emplace_back(image(std::string("cliff_walking/") + f + ".png"), std::string("cliff_walking/") + f + ".png");
  return out;
}

std::vector<std::pair<std::string, std::string>> blackjack_images() {
  std::vector<std::string> files = {"card_back", "label_dealer", "label_player", "label_usable_ace"};
  for (const char* value : {"A", "2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K"})
    for (const char* suit : {"C", "D", "H", "S"}) files.push_back(std::string("card_") + value + suit);
  for (int d = 0; d < 10; ++d) {
    files.push_back("digit_small_" + std::to_string(d));
    files.push_back("digit_big_" + std::to_string(d));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : files) out.emplace_back(image("blackjack/" + f + ".png"), "blackjack/" + f + ".png");
  return out;
}

// ---- FrozenLake ----------------------------------------------------------------------------------

FrozenLakeSize frozen_lake_size(int nrow, int ncol) {
  return {std::min<int64_t>(64 * ncol, 512), std::min<int64_t>(64 * nrow, 512)};
}

void draw_frozen_lake(uint8_t* rgb, int nrow, int ncol, const std::string& tiles, int64_t s, Sprites& sprites,
                      const uint8_t* previous) {
  const FrozenLakeSize size = frozen_lake_size(nrow, ncol);
  const int win_w = static_cast<int>(size.width), win_h = static_cast<int>(size.height);
  const int cw = win_w / ncol, ch = win_h / nrow;
  Canvas cv(rgb, win_w, win_h, /*flip_y=*/false);
  // Gymnasium draws every frame on the env's one window surface: a new pygame.Surface (black) the
  // first time, then the last frame, whose pixels stay where nothing draws over them (the right and
  // bottom edges the tiles do not cover; with cells of 0 pixels, maps over 512 tiles a side, the
  // agent of earlier frames).
  if (previous)
    std::memcpy(rgb, previous, static_cast<size_t>(win_w) * static_cast<size_t>(win_h) * 3);
  else
    cv.fill({0, 0, 0});

  // Tiles fill a cell; the agent, flag and letters keep their proportions (drawn for 64 px cells).
  auto tile = [&](const char* f) -> const RgbaImage& { return sprites.get(image(f), cw, ch); };
  auto overlay = [&](const char* f, int native_w, int native_h) -> const RgbaImage& {
    const double scale = std::min(cw, ch) / 64.0;
    return sprites.get(image(f), std::max(1, py_round(native_w * scale)), std::max(1, py_round(native_h * scale)));
  };
  enum class Anchor { kCorner, kFlag, kCenter };
  auto blit_overlay = [&](const RgbaImage& img, int col, int row, Anchor anchor) {
    const int cx = col * cw, cy = row * ch;
    if (anchor == Anchor::kCorner) {
      const int margin = py_round(cw * 0.06);
      blit(cv, img, cx + margin, cy + margin);
    } else if (anchor == Anchor::kFlag) {  // planted, bottom-centred
      const double x = cx + (cw - img.width) / 2.0;
      const int y = cy + ch - img.height - py_round(ch * 0.12);
      blit(cv, img, static_cast<int>(x), y);
    } else {
      blit(cv, img, static_cast<int>(cx + (cw - img.width) / 2.0), static_cast<int>(cy + (ch - img.height) / 2.0));
    }
  };

  for (int y = 0; y < nrow; ++y) {
    for (int x = 0; x < ncol; ++x) {
      const int px = x * cw, py = y * ch;
      const char t = tiles[static_cast<size_t>(y * ncol + x)];
      if (t == 'H') {
        blit(cv, tile("tile_hole.png"), px, py);
      } else {
        blit(cv, tile("tile_ice.png"), px, py);
        if (t == 'F') {
          // Cracks on some frozen tiles, fixed by position.
          const int crack = (x * 3 + y * 5) % 7;
          if (crack < 2) blit(cv, tile(crack == 0 ? "tile_ice_crack_a.png" : "tile_ice_crack_b.png"), px, py);
        } else if (t == 'S') {
          blit_overlay(overlay("letter_s.png", 12, 20), x, y, Anchor::kCorner);
        } else if (t == 'G') {
          blit_overlay(overlay("goal_flag.png", 24, 32), x, y, Anchor::kFlag);
          blit_overlay(overlay("letter_g.png", 12, 20), x, y, Anchor::kCorner);
        }
      }
      cv.draw_rect_outline(px, py, cw, ch, 1, {180, 200, 230});
    }
  }
  // The agent, unless it fell into a hole (the hole tile covers it).
  const int row = static_cast<int>(s / ncol), col = static_cast<int>(s % ncol);
  if (tiles[static_cast<size_t>(row * ncol + col)] != 'H')
    blit_overlay(overlay("agent.png", 40, 36), col, row, Anchor::kCenter);
}

// ---- Taxi ----------------------------------------------------------------------------------------

void draw_taxi(uint8_t* rgb, const TaxiScene& s, Sprites& sprites) {
  static constexpr int kLocs[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};
  constexpr int kGridX = 48, kGridY = 128, kCellW = 88, kCellH = 56;
  Canvas cv(rgb, static_cast<int>(kTaxiWidth), static_cast<int>(kTaxiHeight), /*flip_y=*/false);
  cv.fill({250, 250, 246});
  blit(cv, sprites.get(image("taxi/background.png")), 0, 80);
  blit(cv, sprites.get(image("taxi/house.png")), 403, 36);
  auto loc = [&](int row, int col) { return std::pair{kGridX + col * kCellW, kGridY + row * kCellH}; };
  const auto [dx0, dy0] = loc(kLocs[s.dest][0], kLocs[s.dest][1]);
  blit(cv, sprites.get(image("taxi/marker_destination.png")), dx0, dy0);
  if (s.pass < 4) {
    const auto [px, py] = loc(kLocs[s.pass][0], kLocs[s.pass][1]);
    blit(cv, sprites.get(image("taxi/passenger.png")), px + 35, py + 19);
  }
  // Headings: south = the vertical taxi flipped upside down, north = as drawn, east = the
  // horizontal one, west = it flipped left to right.
  const bool vertical = s.orientation < 2;
  const std::string name = std::string("taxi/taxi_") + (vertical ? "v" : "h") + (s.pass == 4 ? "_full" : "") + ".png";
  const auto [tx, ty] = loc(s.taxi_row, s.taxi_col);
  const int dx = vertical ? 25 : 15, dy = vertical ? 0 : 9;
  blit(cv, sprites.get(image(name)), tx + dx, ty + dy, /*flip_x=*/s.orientation == 3, /*flip_y=*/s.orientation == 0);
}

// ---- CliffWalking --------------------------------------------------------------------------------

void draw_cliff_walking(uint8_t* rgb, int64_t agent, Sprites& sprites) {
  constexpr int kCols = 12, kCell = 64;
  Canvas cv(rgb, static_cast<int>(kCliffWidth), static_cast<int>(kCliffHeight), /*flip_y=*/false);
  auto img = [&](const char* f) -> const RgbaImage& { return sprites.get(image(std::string("cliff_walking/") + f)); };
  for (int s = 0; s < 48; ++s) {
    const int row = s / kCols, col = s % kCols;
    const int px = col * kCell, py = row * kCell;
    blit(cv, img("tile_ground.png"), px, py);
    if (row == 3 && col >= 1 && col <= 10) {
      const char* t = col == 1 ? "tile_cliff_left.png"
                      : col == 10 ? "tile_cliff_right.png"
                                  : (col % 2 == 0 ? "tile_cliff_mid_a.png" : "tile_cliff_mid_b.png");
      blit(cv, img(t), px, py);
    }
    if (s == 36) blit(cv, img("letter_s.png"), px + 8, py + 8);
    if (s == 47) {
      blit(cv, img("letter_g.png"), px + 8, py + 8);
      blit(cv, img("goal_flag.png"), px + 28, py + 16);
    }
    if (s == agent) blit(cv, img("agent.png"), px + 20, py + 20);
  }
}

// ---- Blackjack -----------------------------------------------------------------------------------

void draw_blackjack(uint8_t* rgb, int player_sum, int dealer_card, bool usable_ace, const std::string& card,
                    Sprites& sprites) {
  constexpr int kWidth = static_cast<int>(kBlackjackWidth), kArtPixel = 4;
  Canvas cv(rgb, kWidth, static_cast<int>(kBlackjackHeight), /*flip_y=*/false);
  auto img = [&](const std::string& f) -> const RgbaImage& { return sprites.get(image("blackjack/" + f + ".png")); };
  auto digits = [&](int number, const char* size, int gap, int x, int y) {
    for (char d : std::to_string(number)) {
      const RgbaImage& digit = img(std::string("digit_") + size + "_" + d);
      blit(cv, digit, x, y);
      x += digit.width + gap;
    }
  };
  auto centred_x = [&](int width) { return (kWidth - width) / 2 / kArtPixel * kArtPixel; };
  cv.fill({196, 216, 158});
  const RgbaImage& dealer_label = img("label_dealer");
  blit(cv, dealer_label, 40, 32);
  digits(dealer_card, "small", 4, 40 + dealer_label.width + 12, 32);
  blit(cv, img("card_" + card), 96, 72);
  blit(cv, img("card_back"), 208, 72);
  blit(cv, img("label_player"), 40, 208);
  const int n = static_cast<int>(std::to_string(player_sum).size());
  const int sum_width = n * img("digit_big_0").width + (n - 1) * 12;
  digits(player_sum, "big", 12, centred_x(sum_width), 248);
  if (usable_ace) {
    const RgbaImage& label = img("label_usable_ace");
    blit(cv, label, centred_x(label.width), 328);
  }
}

}  // namespace envhive::toy_text
