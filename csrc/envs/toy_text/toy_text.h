// Gymnasium's toy-text tasks (FrozenLake, Taxi, CliffWalking, Blackjack), reproduced step for step
// in C++, with renderers that draw Gymnasium 1.4's pixel-art frames pixel for pixel from
// Gymnasium's own images (render/).
#pragma once

#include <string>

#include "../../core/task.h"

namespace envhive {

// `img_dir`: Gymnasium's envs/toy_text/img folder (the renderers blit its PNGs), or "" when it
// cannot be found (then only rendering fails, saying so).
// Gymnasium's toy-text tasks; `images_dir` (DATA: Gymnasium's toy-text img/ folder) holds their pixel art.
void register_toy_text(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
