// minigrid.core.grid.Grid: a width x height array of object ids (kNone: empty), with the wall
// helpers the level generators use. Out-of-range access throws, as minigrid's asserts do.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "world.h"

namespace envhive::minigrid {

class Grid {
 public:
  void resize(int width, int height) {
    width_ = width;
    height_ = height;
    cells_.assign(static_cast<size_t>(width) * static_cast<size_t>(height), kNone);
  }
  int width() const { return width_; }
  int height() const { return height_; }
  bool inside(Pos p) const { return p.x >= 0 && p.x < width_ && p.y >= 0 && p.y < height_; }
  const ObjId* data() const { return cells_.data(); }  // row-major: (x, y) at y * width + x

  ObjId get(int x, int y) const { return cells_[index(x, y)]; }
  ObjId get(Pos p) const { return get(p.x, p.y); }
  void set(int x, int y, ObjId v) { cells_[index(x, y)] = v; }
  void set(Pos p, ObjId v) { set(p.x, p.y, v); }

  // horz_wall / vert_wall (length -1: to the edge) and wall_rect, filling with object `v`.
  void horz_wall(int x, int y, int length, ObjId v) {
    if (length < 0) length = width_ - x;
    for (int i = 0; i < length; ++i) set(x + i, y, v);
  }
  void vert_wall(int x, int y, int length, ObjId v) {
    if (length < 0) length = height_ - y;
    for (int j = 0; j < length; ++j) set(x, y + j, v);
  }
  void wall_rect(int x, int y, int w, int h, ObjId v) {
    horz_wall(x, y, w, v);
    horz_wall(x, y + h - 1, w, v);
    vert_wall(x, y, h, v);
    vert_wall(x + w - 1, y, h, v);
  }

 private:
  size_t index(int x, int y) const {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) [[unlikely]]
      outside(x, y);
    return static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void outside(int x, int y) const {
    throw std::out_of_range("grid position (" + std::to_string(x) + ", " + std::to_string(y) + ") outside a " +
                            std::to_string(width_) + "x" + std::to_string(height_) + " grid");
  }
  int width_ = 0, height_ = 0;
  std::vector<ObjId> cells_;
};

}  // namespace envhive::minigrid
