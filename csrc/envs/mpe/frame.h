// mpe2's frames (SimpleEnv.draw, render_mode="rgb_array"): a white 700 x 700 surface, every entity
// a filled circle in its colour with a 1-pixel black ring, at mpe2's camera (zoomed to the farthest
// entity, radii scaled with dynamic_rescaling), drawn with pygame-ce 2.5's integer rules
// (csrc/envs/pygame/canvas.h). mpe2 also writes "<agent> sends <word>" with a freetype font for each
// agent that talks; those text lines are not drawn here.
#pragma once

#include <cstdint>

#include "world.h"

namespace envhive::mpe {

inline constexpr int kFrameSide = 700;
inline constexpr int kFrameFps = 10;

// np.max(np.abs(positions of every entity)): mpe2's cam_range (and, at reset, original_cam_range).
double camera_range(const World& world);

// Draws `world` into rgb (kFrameSide x kFrameSide x 3, rows top first).
void draw_frame(const World& world, double original_cam_range, bool dynamic_rescaling, uint8_t* rgb);

}  // namespace envhive::mpe
