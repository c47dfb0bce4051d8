// minigrid's frames: Grid.render_tile (each object drawn at 3x supersampling with the shape tests
// of minigrid.utils.rendering, highlighted, then averaged down) and Grid.render (tiles side by
// side). minigrid draws with numpy, so every tile here is the same bytes: the shape tests repeat
// numpy's float32/float64 mix, its two-element dot products and its means, in its order.
#pragma once

#include <cstdint>

#include "world.h"

namespace envhive::minigrid {

// A cell as a tile draws it: 0 for an empty cell, else 1 + the object's (type, color, state).
inline constexpr int kTileCodes = 1 + kNumTypes * kNumColors * 3;
inline int tile_code(const WorldObj* obj) {
  if (obj == nullptr) return 0;
  return 1 + (static_cast<int>(obj->type) * kNumColors + static_cast<int>(obj->color)) * 3 + obj->state();
}

// Grid.render_tile(obj, agent_dir (-1: no agent), highlight, tile_size): tile_size^2 x 3 bytes,
// drawn once per process and kept (thread-safe).
const uint8_t* tile(int tile_size, int code, int agent_dir, bool highlight);

// Copies a tile into a frame `frame_width` cells wide at cell (i, j).
void put_tile(uint8_t* frame, int frame_width, int tile_size, int i, int j, const uint8_t* tile);

}  // namespace envhive::minigrid
