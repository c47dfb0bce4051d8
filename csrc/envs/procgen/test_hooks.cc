// The Procgen family's Python functions (envhive_add_family's BINDINGS), for its tests: the clock
// each game runs on in each mode, as the tasks split terminated / truncated by it
// (tests/families/procgen/test_procgen_kwargs.py checks it against the engine's own state).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <map>
#include <string>

#include "games.h"

namespace envhive {

void bind_procgen_extras(nanobind::module_& m) {
  m.def("engine_timeouts", [] {
    std::map<std::string, std::map<std::string, int32_t>> out;
    for (const procgen::Game& g : procgen::games())
      for (procgen::Mode mode : g.modes) out[g.name][procgen::mode_name(mode)] = procgen::timeout_of(g, mode);
    return out;
  });
}

}  // namespace envhive
