# The engine's own test tasks (hidden: makeable by id, never listed), in envhive._native.
include_guard(GLOBAL)
envhive_add_family(NAME testing MODULE _native PACKAGE envhive
  SOURCES "${CMAKE_CURRENT_LIST_DIR}/testing.cc"
  REGISTER_FUNCTION envhive::register_testing)
