// The Atari family: one task per ROM found in `rom_dir` that this ALE supports, as <Game>-v5.
#pragma once

#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive {

// rom_dir: the installed ale-py wheel's ale_py/roms (located by the bindings).
void register_atari(TaskRegistry& registry, const std::string& rom_dir);

}  // namespace envhive
