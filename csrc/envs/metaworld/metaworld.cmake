# ---- Meta-World family: envhive._metaworld ------------------------------------------------------
# The 50 Sawyer tasks of Meta-World v3 on the libmujoco the MuJoCo family links (its model loading,
# error handlers and renderer: envhive_mujoco_envs). The models are the XML files of the installed
# metaworld package, found through Python when the first env is made; nothing is fetched.
file(GLOB ENVHIVE_METAWORLD_TASKS CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/tasks/*.cc")
add_library(envhive_metaworld_envs STATIC
  ${CMAKE_CURRENT_LIST_DIR}/benchmarks.cc
  ${CMAKE_CURRENT_LIST_DIR}/metaworld.cc
  ${CMAKE_CURRENT_LIST_DIR}/model_store.cc
  ${CMAKE_CURRENT_LIST_DIR}/rand_vec.cc
  ${CMAKE_CURRENT_LIST_DIR}/rewards.cc
  ${CMAKE_CURRENT_LIST_DIR}/sawyer_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/task_table.cc
  ${ENVHIVE_METAWORLD_TASKS})
target_compile_options(envhive_metaworld_envs PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
target_link_libraries(envhive_metaworld_envs PUBLIC envhive_mujoco_envs)
envhive_add_family(NAME _metaworld PACKAGE envhive SOURCES csrc/bindings/metaworld_tasks.cc)
target_link_libraries(_metaworld PRIVATE envhive_metaworld_envs)
set_target_properties(_metaworld PROPERTIES INSTALL_RPATH "$ORIGIN/../mujoco" BUILD_RPATH "${ENVHIVE_MUJOCO_DIR}")
if(ENVHIVE_BUILD_BENCH)
  add_executable(metaworld_loop_bench ${CMAKE_CURRENT_LIST_DIR}/loop_bench.cc)
  target_compile_options(metaworld_loop_bench PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
  target_link_libraries(metaworld_loop_bench PRIVATE envhive_metaworld_envs)
  set_target_properties(metaworld_loop_bench PROPERTIES BUILD_RPATH "${ENVHIVE_MUJOCO_DIR}")
endif()
