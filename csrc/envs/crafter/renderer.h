// crafter's observation: the local view (terrain, objects, daylight, sleep) above the inventory,
// as Env.render draws it, pixel for pixel.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "game.h"
#include "textures.h"

namespace envhive::crafter {

class Renderer {
 public:
  // size: the image (width along x, height along y); view: the grid of cells it shows.
  Renderer(const TextureSet& textures, int size_x, int size_y, int view_x, int view_y);

  // Draws the image as crafter's render() returns it (size_y rows of size_x RGB pixels). The night
  // noise draws from the world's generator, as crafter's does.
  void draw(Game& game, uint8_t* rgb);

  // The rows of inventory below the local view: ceil(16 / view_x).
  static int item_rows(int view_x) { return (kNumItems + view_x - 1) / view_x; }

 private:
  const Texture& cell(const std::string& name);
  void draw_local_view(Game& game);
  void apply_light(Game& game);
  void apply_sleep();
  void draw_items(const Player& player);

  const TextureSet& textures_;
  int size_x_, size_y_;
  int grid_x_, grid_y_, rows_;  // the local view's grid and the item rows under it
  int unit_x_, unit_y_;
  int border_x_, border_y_;
  std::map<std::string, Texture> scaled_;   // cell-sized textures
  std::map<std::string, Texture> items_;    // 0.8 of a cell
  std::map<std::string, Texture> amounts_;  // 0.6 of a cell
  std::vector<double> vignette_;            // the night noise's weight per local-view pixel
  std::vector<uint8_t> local_;              // local view, [x][y][c]
  std::vector<double> lit_;                 // local view after daylight (and sleep), float64
  std::vector<uint8_t> night_;
  std::vector<uint8_t> inventory_;          // item rows, [x][y][c]
};

}  // namespace envhive::crafter
