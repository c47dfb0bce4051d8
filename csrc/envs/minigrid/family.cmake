# MiniGrid and BabyAI (minigrid's), no third-party code: envhive._minigrid.
include_guard(GLOBAL)
envhive_add_family(NAME minigrid PACKAGE envhive MODULE _minigrid
  SOURCES "${CMAKE_CURRENT_LIST_DIR}/minigrid.cc" "${CMAKE_CURRENT_LIST_DIR}/minigrid_env.cc"
          "${CMAKE_CURRENT_LIST_DIR}/room_grid.cc" "${CMAKE_CURRENT_LIST_DIR}/tiles.cc"
          "${CMAKE_CURRENT_LIST_DIR}/babyai/babyai.cc" "${CMAKE_CURRENT_LIST_DIR}/babyai/level.cc"
  REGISTER_FUNCTION envhive::register_minigrid_families
  LOOP_BENCH "${CMAKE_CURRENT_LIST_DIR}/loop_bench.cc")
