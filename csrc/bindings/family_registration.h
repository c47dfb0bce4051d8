// Registering a module's families when envhive loads it: `register_families(values, resolvers)`,
// called by envhive.catalog (and by the build, for the task manifest) with each family's DATA
// resolved to paths and its Python resolver, if its descriptor has one.
#pragma once

#include <nanobind/nanobind.h>

namespace envhive::bindings {
// Whether register_families has run in this module.
bool module_registered();
// DATA_DECLARATIONS, FAMILIES and register_families on the module.
void bind_family_registration(nanobind::module_& m);
}  // namespace envhive::bindings
