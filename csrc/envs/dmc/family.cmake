# The DeepMind Control Suite, in envhive._mujoco beside Gymnasium's MuJoCo tasks: on the same
# libmujoco and the MuJoCo family's model loading and renderer (envhive_mujoco_envs). Every family
# on MuJoCo shares that one module, so one copy of envhive's MuJoCo handlers owns libmujoco's
# process-wide error and warning hooks (mujoco_env.cc) and one model cache and GL context per
# thread serve them all. Its models are the XML dm_control builds, built on demand by the family's
# Python resolver (src/envhive/families/dmc.py) the first time a task is made.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../mujoco/family.cmake")
option(ENVHIVE_BUILD_DMC "Build the DeepMind Control Suite family (in _mujoco)" ON)
if(ENVHIVE_BUILD_MUJOCO AND ENVHIVE_BUILD_DMC)
  envhive_add_family(NAME dmc PACKAGE envhive MODULE _mujoco
    SOURCES "${CMAKE_CURRENT_LIST_DIR}/dmc.cc" "${CMAKE_CURRENT_LIST_DIR}/dmc_env.cc"
            "${CMAKE_CURRENT_LIST_DIR}/model_source.cc"
    LINK envhive_mujoco_envs
    REGISTER_FUNCTION envhive::register_dmc
    RESOLVER
    BINDINGS "${CMAKE_CURRENT_LIST_DIR}/test_hooks.cc"
    RPATH "${ENVHIVE_MUJOCO_DIR}"
    LOOP_BENCH "${CMAKE_CURRENT_LIST_DIR}/loop_bench.cc")
endif()
