# Environments written in Python (envhive.authoring), compiled with Numba and registered into
# envhive._native at run time: no task at load, the bindings that register them.
include_guard(GLOBAL)
envhive_add_family(NAME python MODULE _native PACKAGE envhive
  SOURCES "${CMAKE_CURRENT_LIST_DIR}/compiled_env.cc"
  BINDINGS "${CMAKE_CURRENT_LIST_DIR}/python_envs.cc"
  REGISTER_FUNCTION envhive::python::register_tasks)
