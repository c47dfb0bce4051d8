// The Atari family: one task per ROM found in `rom_dir` that this ALE supports, as <Game>-v5.
#pragma once

#include <string>
#include <vector>

#include "../../core/task.h"

namespace envhive {

// rom_dir: the installed ale-py wheel's ale_py/roms (located by the bindings).
// One task per ROM of `rom_dir` (DATA: the installed ale-py wheel's ROMs), or of $ALE_ROMS_DIR where set, as
// ale-py honours it.
void register_atari(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive
