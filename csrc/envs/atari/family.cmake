# Atari (ALE, GPL-2.0): built from the ale-py sdist (fetched with pip, cached; ale.cmake) and linked
# into envhive._atari only, so the other modules stay free of it. The ROMs are the installed ale-py
# wheel's (or $ALE_ROMS_DIR, as ale-py honours it), handed over when the module loads.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_ATARI "Build the Atari family module (_atari; fetches and builds ALE once)" ON)
if(ENVHIVE_BUILD_ATARI)
  include("${CMAKE_CURRENT_LIST_DIR}/ale.cmake")
  envhive_add_family(NAME atari PACKAGE envhive MODULE _atari
    SOURCES "${CMAKE_CURRENT_LIST_DIR}/atari.cc" "${CMAKE_CURRENT_LIST_DIR}/atari_env.cc"
    LINK envhive_ale
    REGISTER_FUNCTION envhive::register_atari
    DATA rom_dir=ale_py:roms
    LOOP_BENCH "${CMAKE_CURRENT_LIST_DIR}/loop_bench.cc")
endif()
