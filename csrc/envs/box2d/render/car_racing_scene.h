// CarRacing-v3's _render(): Gymnasium 1.4's drawing code step for step on the pygame rasterizer.
// The scene is drawn on a 1000 x 800 surface (the road and the car rotated and zoomed around the
// car, y up, then flipped; the indicator bars and the reward text in screen coordinates) and
// pygame.transform.smoothscale'd to 96 x 96 (the observation) or 600 x 400 (render()).
//
// The reward text is pygame's font (freesansbold.ttf at 42 px, SDL_ttf's anti-aliased glyphs):
// envhive draws the glyph images pygame renders and places them where SDL_ttf's layout puts them,
// both read once per process from pygame itself (CarRacingText; see envhive/text_images.py).
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../../core/render.h"
#include "../car_dynamics.h"

namespace envhive::box2d {

using Point2 = std::array<double, 2>;
using Color3 = std::array<double, 3>;  // a numpy colour array (pygame truncates it)

struct CarRacingScene {
  struct RoadPoly {
    std::array<Point2, 4> poly;
    const Color3* color;  // a tile's own colour (the friction detector changes it), or `border`
    Color3 border;
  };
  Color3 road_color{}, bg_color{}, grass_color{};
  std::vector<RoadPoly> road_poly;
  double t = 0.0;  // seconds since reset: the zoom animates over the first second
};

// The glyphs of CarRacing's reward text and their layout: the render images that
// envhive.text_images makes with pygame's font.
class CarRacingText {
 public:
  static constexpr const char* kGlyphs = "0123456789-";
  // The render images a pool loads when it is made (TaskMeta::images_at_start): one per glyph,
  // and the layout table.
  static std::vector<std::pair<std::string, std::string>> images();
  // Loaded from RenderImages (throws when they were not loaded).
  CarRacingText();
  // Draws `text` (glyphs of kGlyphs) centred at (cx, cy) as pygame's font.render(text, True,
  // white, black) blitted there: its whole surface, black behind the glyphs.
  void draw(uint8_t* rgb, int width, int height, const std::string& text, int cx, int cy) const;

 private:
  std::array<std::shared_ptr<const RgbaImage>, 11> glyphs_;  // font.render(glyph): gray, alpha 255
  std::array<int, 11> width_{};                              // font.size(glyph)[0]
  // One row per reward string ("-000", then f"{v:04d}" for v from -10000 to 1000), each cell a
  // little-endian int32: the text's width, then each glyph's x (font.size of the string up to and
  // including the glyph, less the glyph's own width: where SDL_ttf puts it).
  std::shared_ptr<const RgbaImage> layout_;
};

// The 1000 x 800 surface (rows top first) for the car's current state; `particles`: draw the skid
// marks (render(), not the observation).
void draw_car_racing_surface(uint8_t* rgb, const CarRacingScene& scene, const Car& car, double reward,
                             bool particles, const CarRacingText& text);

}  // namespace envhive::box2d
