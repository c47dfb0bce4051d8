#include "tiles.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace envhive::minigrid {

namespace {

constexpr int kSubdivs = 3;

// A supersampled tile being drawn: fill() is fill_coords (pixel centres in [0, 1]^2).
struct Canvas {
  int side;
  std::vector<uint8_t> px;
  explicit Canvas(int s) : side(s), px(static_cast<size_t>(s) * static_cast<size_t>(s) * 3, 0) {}

  template <class Shape>
  void fill(const Shape& inside, double r, double g, double b) {
    // numpy's unsafe cast of a float colour into a uint8 pixel truncates.
    const uint8_t rgb[3] = {static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b)};
    for (int y = 0; y < side; ++y) {
      const double yf = (y + 0.5) / side;
      for (int x = 0; x < side; ++x) {
        const double xf = (x + 0.5) / side;
        if (inside(xf, yf)) std::memcpy(&px[static_cast<size_t>(y * side + x) * 3], rgb, 3);
      }
    }
  }
  void fill(const auto& inside, const uint8_t* rgb) { fill(inside, rgb[0], rgb[1], rgb[2]); }
};

// np.dot of two float64 pairs: numpy hands it to OpenBLAS's ddot, whose short tail runs as one
// fused multiply-add onto the first product.
double dot2(double a0, double a1, double b0, double b1) { return std::fma(a1, b1, a0 * b0); }

auto rect(double xmin, double xmax, double ymin, double ymax) {
  return [=](double x, double y) { return x >= xmin && x <= xmax && y >= ymin && y <= ymax; };
}

auto circle(double cx, double cy, double r) {
  return [=](double x, double y) { return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r; };
}

// point_in_line: the end points are float32 arrays, the query point float64.
auto line(double x0, double y0, double x1, double y1, double r) {
  const float p0x = static_cast<float>(x0), p0y = static_cast<float>(y0);
  const float p1x = static_cast<float>(x1), p1y = static_cast<float>(y1);
  float dx = p1x - p0x, dy = p1y - p0y;
  const float dist = std::sqrt(dx * dx + dy * dy);  // float32 norm: sdot, then float32 sqrt
  dx = dx / dist;
  dy = dy / dist;
  const double xmin = std::min(x0, x1) - r, xmax = std::max(x0, x1) + r;
  const double ymin = std::min(y0, y1) - r, ymax = std::max(y0, y1) + r;
  return [=](double x, double y) {
    if (x < xmin || x > xmax || y < ymin || y > ymax) return false;
    const double pqx = x - p0x, pqy = y - p0y;
    double a = dot2(pqx, pqy, dx, dy);
    a = std::min(std::max(a, 0.0), static_cast<double>(dist));  // np.clip(a, 0, dist)
    const double px = p0x + a * dx, py = p0y + a * dy;
    const double qx = x - px, qy = y - py;
    return std::sqrt(dot2(qx, qy, qx, qy)) <= r;
  };
}

// point_in_triangle: corners are float32 arrays; products of two float32 vectors stay float32.
auto triangle(double ax_, double ay_, double bx_, double by_, double cx_, double cy_) {
  const float ax = static_cast<float>(ax_), ay = static_cast<float>(ay_);
  const float bx = static_cast<float>(bx_), by = static_cast<float>(by_);
  const float cx = static_cast<float>(cx_), cy = static_cast<float>(cy_);
  const float v0x = cx - ax, v0y = cy - ay, v1x = bx - ax, v1y = by - ay;
  const float dot00 = v0x * v0x + v0y * v0y;
  const float dot01 = v0x * v1x + v0y * v1y;
  const float dot11 = v1x * v1x + v1y * v1y;
  const float p = dot00 * dot11, q = dot01 * dot01;
  const float den = p - q;
  const float inv_denom = 1.0f / den;
  return [=](double x, double y) {
    const double v2x = x - ax, v2y = y - ay;
    const double dot02 = dot2(v0x, v0y, v2x, v2y);
    const double dot12 = dot2(v1x, v1y, v2x, v2y);
    const double u = (static_cast<double>(dot11) * dot02 - static_cast<double>(dot01) * dot12) * inv_denom;
    const double v = (static_cast<double>(dot00) * dot12 - static_cast<double>(dot01) * dot02) * inv_denom;
    return u >= 0 && v >= 0 && (u + v) < 1;
  };
}

// rotate_fn(fn, cx, cy, theta)
template <class F>
auto rotated(F fn, double cx, double cy, double theta) {
  const double c = std::cos(-theta), s = std::sin(-theta);
  return [=](double x, double y) {
    x = x - cx;
    y = y - cy;
    const double x2 = cx + x * c - y * s;
    const double y2 = cy + y * c + x * s;
    return fn(x2, y2);
  };
}

constexpr uint8_t kBlack[3] = {0, 0, 0};

// WorldObj.render for each kind of object.
void draw_object(Canvas& img, Type type, Color color, uint8_t state) {
  const uint8_t* c = kColorRgb[static_cast<size_t>(color)];
  switch (type) {
    case Type::kGoal:
    case Type::kWall:
      img.fill(rect(0, 1, 0, 1), c);
      break;
    case Type::kFloor:
      img.fill(rect(0.031, 1, 0.031, 1), c[0] / 2.0, c[1] / 2.0, c[2] / 2.0);
      break;
    case Type::kLava:
      img.fill(rect(0, 1, 0, 1), 255, 128, 0);
      for (int i = 0; i < 3; ++i) {
        const double ylo = 0.3 + 0.2 * i, yhi = 0.4 + 0.2 * i;
        img.fill(line(0.1, ylo, 0.3, yhi, 0.03), kBlack);
        img.fill(line(0.3, yhi, 0.5, ylo, 0.03), kBlack);
        img.fill(line(0.5, ylo, 0.7, yhi, 0.03), kBlack);
        img.fill(line(0.7, yhi, 0.9, ylo, 0.03), kBlack);
      }
      break;
    case Type::kDoor:
      if (state == static_cast<uint8_t>(DoorState::kOpen)) {
        img.fill(rect(0.88, 1.00, 0.00, 1.00), c);
        img.fill(rect(0.92, 0.96, 0.04, 0.96), kBlack);
      } else if (state == static_cast<uint8_t>(DoorState::kLocked)) {
        img.fill(rect(0.00, 1.00, 0.00, 1.00), c);
        img.fill(rect(0.06, 0.94, 0.06, 0.94), 0.45 * c[0], 0.45 * c[1], 0.45 * c[2]);
        img.fill(rect(0.52, 0.75, 0.50, 0.56), c);  // key slot
      } else {
        img.fill(rect(0.00, 1.00, 0.00, 1.00), c);
        img.fill(rect(0.04, 0.96, 0.04, 0.96), kBlack);
        img.fill(rect(0.08, 0.92, 0.08, 0.92), c);
        img.fill(rect(0.12, 0.88, 0.12, 0.88), kBlack);
        img.fill(circle(0.75, 0.50, 0.08), c);  // handle
      }
      break;
    case Type::kKey:
      img.fill(rect(0.50, 0.63, 0.31, 0.88), c);
      img.fill(rect(0.38, 0.50, 0.59, 0.66), c);
      img.fill(rect(0.38, 0.50, 0.81, 0.88), c);
      img.fill(circle(0.56, 0.28, 0.190), c);
      img.fill(circle(0.56, 0.28, 0.064), kBlack);
      break;
    case Type::kBall:
      img.fill(circle(0.5, 0.5, 0.31), c);
      break;
    case Type::kBox:
      img.fill(rect(0.12, 0.88, 0.12, 0.88), c);
      img.fill(rect(0.18, 0.82, 0.18, 0.82), kBlack);
      img.fill(rect(0.16, 0.84, 0.47, 0.53), c);
      break;
    default:
      break;  // unseen, empty, agent: nothing of their own
  }
}

std::vector<uint8_t> draw_tile(int tile_size, int code, int agent_dir, bool highlight) {
  Canvas img(tile_size * kSubdivs);
  const uint8_t grey[3] = {100, 100, 100};
  img.fill(rect(0, 0.031, 0, 1), grey);  // grid lines: top and left edges
  img.fill(rect(0, 1, 0, 0.031), grey);
  if (code > 0) {
    const int k = code - 1;
    draw_object(img, static_cast<Type>(k / (kNumColors * 3)), static_cast<Color>((k / 3) % kNumColors),
                static_cast<uint8_t>(k % 3));
  }
  if (agent_dir >= 0) {
    const double theta = 0.5 * 3.141592653589793 * agent_dir;
    img.fill(rotated(triangle(0.12, 0.19, 0.87, 0.50, 0.12, 0.81), 0.5, 0.5, theta), 255, 0, 0);
  }
  if (highlight) {  // highlight_img: img + 0.3 * (255 - img), in float64, clipped and truncated
    for (uint8_t& v : img.px) {
      const double blended = v + 0.30 * static_cast<uint8_t>(255 - v);
      v = static_cast<uint8_t>(std::clamp(blended, 0.0, 255.0));
    }
  }
  // downsample: the mean over each 3-pixel row of a block, then the mean of those three means.
  std::vector<uint8_t> out(static_cast<size_t>(tile_size) * static_cast<size_t>(tile_size) * 3);
  const size_t side = static_cast<size_t>(img.side);
  for (int ty = 0; ty < tile_size; ++ty)
    for (int tx = 0; tx < tile_size; ++tx)
      for (int ch = 0; ch < 3; ++ch) {
        double rows[kSubdivs];
        for (int sy = 0; sy < kSubdivs; ++sy) {
          const size_t y = static_cast<size_t>(ty * kSubdivs + sy);
          double sum = 0.0;
          for (int sx = 0; sx < kSubdivs; ++sx)
            sum += img.px[(y * side + static_cast<size_t>(tx * kSubdivs + sx)) * 3 + static_cast<size_t>(ch)];
          rows[sy] = sum / kSubdivs;
        }
        const double mean = (rows[0] + rows[1] + rows[2]) / kSubdivs;
        out[(static_cast<size_t>(ty) * static_cast<size_t>(tile_size) + static_cast<size_t>(tx)) * 3 +
            static_cast<size_t>(ch)] = static_cast<uint8_t>(mean);
      }
  return out;
}

// The tiles of one tile size, drawn on first use: a slot per (code, agent_dir + 1, highlight).
struct TileTable {
  static constexpr size_t kSlots = static_cast<size_t>(kTileCodes) * 5 * 2;
  std::unique_ptr<std::atomic<const uint8_t*>[]> slots{new std::atomic<const uint8_t*>[kSlots]()};
};

TileTable& table(int tile_size) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<TileTable>> tables;  // never freed: tiles live for the process
  std::lock_guard<std::mutex> lock(mutex);
  auto& t = tables[tile_size];
  if (!t) t = std::make_unique<TileTable>();
  return *t;
}

}  // namespace

const uint8_t* tile(int tile_size, int code, int agent_dir, bool highlight) {
  TileTable& t = table(tile_size);
  auto& slot = t.slots[(static_cast<size_t>(code) * 5 + static_cast<size_t>(agent_dir + 1)) * 2 + (highlight ? 1 : 0)];
  const uint8_t* have = slot.load(std::memory_order_acquire);
  if (have != nullptr) return have;
  std::vector<uint8_t> drawn = draw_tile(tile_size, code, agent_dir, highlight);
  auto* fresh = new uint8_t[drawn.size()];
  std::memcpy(fresh, drawn.data(), drawn.size());
  if (slot.compare_exchange_strong(have, fresh, std::memory_order_acq_rel)) return fresh;
  delete[] fresh;  // another thread drew it first
  return have;
}

void put_tile(uint8_t* frame, int frame_width, int tile_size, int i, int j, const uint8_t* t) {
  const size_t row_bytes = static_cast<size_t>(tile_size) * 3;
  const size_t frame_row = static_cast<size_t>(frame_width) * row_bytes;
  uint8_t* dst = frame + static_cast<size_t>(j * tile_size) * frame_row + static_cast<size_t>(i) * row_bytes;
  for (size_t y = 0; y < static_cast<size_t>(tile_size); ++y)
    std::memcpy(dst + y * frame_row, t + y * row_bytes, row_bytes);
}

}  // namespace envhive::minigrid
