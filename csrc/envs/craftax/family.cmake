# Craftax (craftax 1.6.1's Craftax-Classic in C++; no third-party code): envhive._craftax. It needs
# nothing at run time but, for the pixel task, the installed craftax package's textures, decoded by
# the family's Python resolver (src/envhive/families/craftax.py) the first time a pixel task is made.
# jax.random's threefry, XLA's cumsum and the game are written here.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_CRAFTAX "Build the Craftax family module (_craftax)" ON)
if(ENVHIVE_BUILD_CRAFTAX)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME craftax PACKAGE envhive MODULE _craftax
    SOURCES "${_dir}/craftax.cc" "${_dir}/classic_actions.cc" "${_dir}/classic_env.cc" "${_dir}/classic_mobs.cc"
            "${_dir}/classic_obs.cc" "${_dir}/classic_pixels.cc" "${_dir}/classic_textures.cc"
            "${_dir}/classic_world.cc"
    REGISTER_FUNCTION envhive::craftax::register_tasks
    RESOLVER
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
