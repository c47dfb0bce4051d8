// Gymnasium 1.4's toy-text render() scenes: Gymnasium's pixel-art PNGs (envs/toy_text/img) blitted
// with pygame's per-pixel alpha, scaled with pygame.transform.scale where Gymnasium scales them,
// and FrozenLake's cell outlines, on the shared pygame rasterizer (csrc/envs/pygame/).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../../core/render.h"

namespace envhive::toy_text {

// Every image a toy-text renderer draws, as {render image name, path under Gymnasium's img/}.
std::vector<std::pair<std::string, std::string>> frozen_lake_images();
std::vector<std::pair<std::string, std::string>> taxi_images();
std::vector<std::pair<std::string, std::string>> cliff_walking_images();
std::vector<std::pair<std::string, std::string>> blackjack_images();

// A pool thread's images at the sizes it drew them (pygame.transform.scale of the file, made on
// first use of a size and kept). Not thread-safe: one per pool thread (its RenderSlot).
class Sprites final : public RenderState {
 public:
  // The image `name` (a render image), scaled to w x h unless they are -1 (its own size).
  const RgbaImage& get(const std::string& name, int w = -1, int h = -1);

 private:
  std::map<std::tuple<std::string, int, int>, RgbaImage> scaled_;
};
// This pool thread's Sprites.
Sprites& sprites(RenderSlot& slot);

// FrozenLake: min(64 * ncol, 512) x min(64 * nrow, 512).
struct FrozenLakeSize {
  int64_t width, height;
};
FrozenLakeSize frozen_lake_size(int nrow, int ncol);
// `previous`: the env's last frame (the window surface Gymnasium draws on again), or null (a new one).
void draw_frozen_lake(uint8_t* rgb, int nrow, int ncol, const std::string& tiles, int64_t s, Sprites& sprites,
                      const uint8_t* previous);

constexpr int64_t kTaxiWidth = 536, kTaxiHeight = 456;
struct TaxiScene {
  int taxi_row, taxi_col, pass, dest;
  int orientation;  // 0 south, 1 north, 2 east, 3 west
};
void draw_taxi(uint8_t* rgb, const TaxiScene& scene, Sprites& sprites);

constexpr int64_t kCliffWidth = 12 * 64, kCliffHeight = 4 * 64;
void draw_cliff_walking(uint8_t* rgb, int64_t s, Sprites& sprites);

constexpr int64_t kBlackjackWidth = 384, kBlackjackHeight = 376;
// `card`: the dealer's face-up card as Gymnasium names its image ("KH", "7C", "AS").
void draw_blackjack(uint8_t* rgb, int player_sum, int dealer_card, bool usable_ace, const std::string& card,
                    Sprites& sprites);

}  // namespace envhive::toy_text
