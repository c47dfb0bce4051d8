#include "frame.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "../pygame/canvas.h"

namespace envhive::mpe {
namespace {

using pygame::Canvas;
using pygame::Rgb;

// Python's float // float (CPython float_floor_div).
double py_floordiv(double v, double w) {
  double mod = std::fmod(v, w);
  double div = (v - mod) / w;
  if (mod != 0.0) {
    if ((w < 0) != (mod < 0)) div -= 1.0;
  }
  if (div != 0.0) {
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return std::copysign(0.0, v / w);
}

// pygame-ce's colour from a numpy float array (entity.color * 200): each channel int()-ed.
uint8_t channel(double v) { return static_cast<uint8_t>(static_cast<int>(v)); }

// One character of mpe2's font as pygame.freetype.Font.render draws it alone: its advance, its
// bounding box's left (from the pen) and top (above the baseline), and its coverage, w x h alpha
// bytes, rows top first.
struct Glyph {
  int advance = 0, left = 0, top = 0, w = 0, h = 0;
  std::vector<uint8_t> alpha;
};

std::shared_mutex& glyphs_mutex() {
  static std::shared_mutex m;
  return m;
}
std::map<char, Glyph>& glyphs() {
  static std::map<char, Glyph> g;
  return g;
}

// One glyph blended toward black at (x0, y0) as pygame.freetype blends it: dst + (((0 - dst) *
// alpha + 0) >> 8), pixels off the surface dropped.
void blend_glyph(uint8_t* rgb, int x0, int y0, const Glyph& g) {
  for (int y = 0; y < g.h; ++y) {
    const int py = y0 + y;
    if (py < 0 || py >= kFrameSide) continue;
    for (int x = 0; x < g.w; ++x) {
      const int px = x0 + x;
      const int a = g.alpha[static_cast<size_t>(y) * static_cast<size_t>(g.w) + static_cast<size_t>(x)];
      if (px < 0 || px >= kFrameSide || a == 0) continue;
      uint8_t* p = rgb + (static_cast<size_t>(py) * kFrameSide + static_cast<size_t>(px)) * 3;
      for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>(p[k] + (((0 - p[k]) * a + 0) >> 8));
    }
  }
}

// font.render_to(surface, (x0, y0), text, (0, 0, 0)): the glyphs one after another on the pen's
// integer advances (no kerning), the text's bounding box (its leftmost ink, its highest top) at
// (x0, y0). False, drawing nothing, when a character has no glyph.
bool draw_text(uint8_t* rgb, int x0, int y0, const std::string& text) {
  std::shared_lock lock(glyphs_mutex());
  const auto& table = glyphs();
  int pen = 0, left = 0, top = 0;
  bool any = false;
  for (char ch : text) {
    const auto it = table.find(ch);
    if (it == table.end()) return false;
    const Glyph& g = it->second;
    if (g.w > 0 && g.h > 0) {
      left = any ? std::min(left, pen + g.left) : pen + g.left;
      top = any ? std::max(top, g.top) : g.top;
      any = true;
    }
    pen += g.advance;
  }
  pen = 0;
  for (char ch : text) {
    const Glyph& g = table.at(ch);
    if (g.w > 0 && g.h > 0) blend_glyph(rgb, x0 + pen + g.left - left, y0 + top - g.top, g);
    pen += g.advance;
  }
  return true;
}

}  // namespace

void load_glyphs(const FamilyData* data, const std::string& chars) {
  if (data == nullptr) return;
  for (char ch : chars) {
    {
      std::shared_lock lock(glyphs_mutex());
      if (glyphs().count(ch)) continue;
    }
    Glyph g;
    try {
      const FamilyData::Files files = data->resolve(std::string("glyph:") + ch);
      if (files.empty() || files.front().second.size() < 20) return;
      const std::string& bytes = files.front().second;
      int32_t head[5];
      std::memcpy(head, bytes.data(), sizeof(head));
      g.advance = head[0];
      g.left = head[1];
      g.top = head[2];
      g.w = head[3];
      g.h = head[4];
      if (g.w < 0 || g.h < 0 || g.w > kFrameSide || g.h > kFrameSide ||
          bytes.size() != sizeof(head) + static_cast<size_t>(g.w) * static_cast<size_t>(g.h))
        return;
      g.alpha.assign(bytes.begin() + sizeof(head), bytes.end());
    } catch (const std::exception&) {
      return;  // no resolver, or it cannot draw text here (no pygame / mpe2): frames without text
    }
    std::unique_lock lock(glyphs_mutex());
    glyphs().emplace(ch, std::move(g));
  }
}

double camera_range(const World& world) {
  double m = 0.0;  // every |p| is >= 0; a NaN position propagates as np.max does
  for (const Entity& e : world.entities)
    for (double p : e.pos) {
      const double a = std::fabs(p);
      if (std::isnan(a)) return a;
      if (a > m) m = a;
    }
  return m;
}

void draw_frame(const World& world, double original_cam_range, bool dynamic_rescaling,
                const std::vector<std::string>& messages, uint8_t* rgb) {
  Canvas canvas(rgb, kFrameSide, kFrameSide, false);
  canvas.fill({255, 255, 255});
  const double cam_range = camera_range(world);
  const double scaling = 0.9 * original_cam_range / cam_range;
  const double side = kFrameSide;
  int text_line = 0;
  for (size_t i = 0; i < world.entities.size(); ++i) {
    const Entity& e = world.entities[i];
    double x = e.pos[0];
    double y = e.pos[1] * -1;
    x = py_floordiv((x / cam_range) * side, 2) * 0.9;
    y = py_floordiv((y / cam_range) * side, 2) * 0.9;
    x += kFrameSide / 2;
    y += kFrameSide / 2;
    const double radius = dynamic_rescaling ? e.size * 350 * scaling : e.size * 350;
    const int cx = pygame::draw_coord(x), cy = pygame::draw_coord(y), r = pygame::draw_coord(radius);
    canvas.draw_circle(cx, cy, r, {channel(e.color[0] * 200), channel(e.color[1] * 200), channel(e.color[2] * 200)});
    canvas.draw_circle_ring(cx, cy, r, {0, 0, 0});
    if (i < messages.size() && !messages[i].empty()) {
      // message position: (width * 0.05, height * 0.95 - height * 0.05 * line), integers here
      draw_text(rgb, 35, 665 - 35 * text_line, messages[i]);
      ++text_line;
    }
  }
}

}  // namespace envhive::mpe
