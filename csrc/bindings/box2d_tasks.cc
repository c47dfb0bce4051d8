// envhive._box2d: Gymnasium's Box2D tasks. Box2D (zlib licence) is built from pybox2d's source
// distribution and linked into this module only; nothing is needed at run time.
#include "../envs/box2d/box2d.h"
#include "module_tasks.h"

namespace envhive {

void register_module_tasks(TaskRegistry& registry) { register_box2d(registry); }

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
