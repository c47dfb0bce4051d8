# Crafter (crafter 1.8.3's game in C++; no third-party code): envhive._crafter. Its textures are the
# installed crafter package's assets, decoded by the family's Python resolver
# (src/envhive/families/crafter.py) the first time a task is made, with crafter's rules (data.yaml)
# checked against the ones compiled in.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_CRAFTER "Build the Crafter family module (_crafter)" ON)
if(ENVHIVE_BUILD_CRAFTER)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME crafter PACKAGE envhive MODULE _crafter
    SOURCES "${_dir}/crafter.cc" "${_dir}/crafter_env.cc" "${_dir}/game.cc" "${_dir}/renderer.cc"
            "${_dir}/rules.cc" "${_dir}/simplex_noise.cc" "${_dir}/textures.cc" "${_dir}/world.cc"
            "${_dir}/worldgen.cc"
    REGISTER_FUNCTION envhive::crafter::register_tasks
    RESOLVER
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
