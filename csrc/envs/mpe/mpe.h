// The MPE family's register function (family.cmake names it).
#pragma once

#include "../../core/task.h"

namespace envhive::mpe {

void register_tasks(TaskRegistry& registry, const FamilyData& data);

}  // namespace envhive::mpe
