# ViZDoom under EnvPool's names (envhive._vizdoom): EnvPool 1.2.5's 21 ids on the vizdoom wheel's C++
# client, reached through dlsym at run time (doom_client.h), compiled against ViZDoom's headers
# (headers.cmake fetches them). The wheel's files and EnvPool's maps are named by the family's
# Python resolver (src/envhive/families/vizdoom.py) when the first env is made.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_VIZDOOM "Build the ViZDoom family module (_vizdoom; fetches ViZDoom's headers once)" ON)
if(ENVHIVE_BUILD_VIZDOOM)
  include("${CMAKE_CURRENT_LIST_DIR}/headers.cmake")
endif()
if(ENVHIVE_BUILD_VIZDOOM AND ENVHIVE_VIZDOOM_SUPPORTED)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME vizdoom PACKAGE envhive MODULE _vizdoom
    SOURCES "${_dir}/action_set.cc" "${_dir}/doom_client.cc" "${_dir}/doom_files.cc" "${_dir}/game_variables.cc"
            "${_dir}/vizdoom_env.cc" "${_dir}/vizdoom.cc"
    LINK ${CMAKE_DL_LIBS}
    REGISTER_FUNCTION envhive::vizdoom::register_tasks
    RESOLVER)
  target_include_directories(envhive_vizdoom_envs SYSTEM PRIVATE "${ENVHIVE_VIZDOOM_INCLUDE_DIR}")
endif()
