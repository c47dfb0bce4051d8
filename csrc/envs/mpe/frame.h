// mpe2's frames (SimpleEnv.draw, render_mode="rgb_array"): a white 700 x 700 surface, every entity
// a filled circle in its colour with a 1-pixel black ring, at mpe2's camera (zoomed to the farthest
// entity, radii scaled with dynamic_rescaling), drawn with pygame-ce 2.5's integer rules
// (csrc/envs/pygame/canvas.h). mpe2 also writes "<agent> sends <word>   " with pygame.freetype for each
// agent that talks, right after that agent's circle: each character's coverage comes from the
// family's Python resolver (pygame.freetype itself, mpe2's font), fetched when a task's spaces are
// resolved, and the line is laid out and blended here as pygame.freetype does (integer advances, no
// kerning). Without the glyphs (no pygame or mpe2 installed; the loop bench) frames carry no text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../../core/family_data.h"

#include "world.h"

namespace envhive::mpe {

inline constexpr int kFrameSide = 700;
inline constexpr int kFrameFps = 10;

// np.max(np.abs(positions of every entity)): mpe2's cam_range (and, at reset, original_cam_range).
double camera_range(const World& world);

// The characters mpe2's text lines use besides the agents' names.
inline constexpr const char* kTextCharacters = " sends_[],.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

// Fetches (once per process) the glyphs of `chars` from the family's resolver; none without one.
void load_glyphs(const FamilyData* data, const std::string& chars);

// Draws `world` into rgb (kFrameSide x kFrameSide x 3, rows top first). messages[i]: what agent i
// says ("" for a silent agent: no text line).
void draw_frame(const World& world, double original_cam_range, bool dynamic_rescaling,
                const std::vector<std::string>& messages, uint8_t* rgb);

}  // namespace envhive::mpe
