# Procgen (envhive._procgen): the 16 games driven through the official procgen 0.10.7 engine, one
# engine instance per env (engine.cmake fetches it into a cache; the module dlopens it at run time,
# from the cache its Python descriptor's resolver names: src/envhive/families/procgen.py).
include_guard(GLOBAL)
option(ENVHIVE_BUILD_PROCGEN "Build the Procgen family module (_procgen; fetches the official procgen 0.10.7 engine once)" ON)
if(ENVHIVE_BUILD_PROCGEN)
  include("${CMAKE_CURRENT_LIST_DIR}/engine.cmake")
endif()
if(ENVHIVE_BUILD_PROCGEN AND ENVHIVE_PROCGEN_SUPPORTED)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME procgen PACKAGE envhive MODULE _procgen
    SOURCES "${_dir}/engine_library.cc" "${_dir}/engine_instance.cc" "${_dir}/games.cc" "${_dir}/procgen_env.cc"
            "${_dir}/procgen.cc"
    LINK ${CMAKE_DL_LIBS}
    REGISTER_FUNCTION envhive::procgen::register_tasks
    RESOLVER
    BINDINGS "${_dir}/test_hooks.cc"
    LOOP_BENCH "${_dir}/loop_bench.cc")
  target_compile_definitions(envhive_procgen_envs PRIVATE "ENVHIVE_PROCGEN_BUILD_CACHE=\"${ENVHIVE_PROCGEN_ENGINE_DIR}\"")
endif()
