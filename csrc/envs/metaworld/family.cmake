# Meta-World v3's 50 Sawyer tasks and its MT / ML benchmarks, in envhive._mujoco beside Gymnasium's
# MuJoCo tasks and the DeepMind Control Suite: on the same libmujoco and the MuJoCo family's model
# loading, error handlers and renderer (envhive_mujoco_envs). The models are the XML files of the
# installed metaworld package (DATA assets_dir), compiled when the first env of a task is made;
# nothing is fetched or copied.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../mujoco/family.cmake")
option(ENVHIVE_BUILD_METAWORLD "Build the Meta-World family (in _mujoco)" ON)
if(ENVHIVE_BUILD_MUJOCO AND ENVHIVE_BUILD_METAWORLD)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  file(GLOB _metaworld_tasks CONFIGURE_DEPENDS "${_dir}/tasks/*.cc")
  envhive_add_family(NAME metaworld PACKAGE envhive MODULE _mujoco
    SOURCES "${_dir}/benchmarks.cc" "${_dir}/metaworld.cc" "${_dir}/model_store.cc" "${_dir}/rand_vec.cc"
            "${_dir}/rewards.cc" "${_dir}/sawyer_env.cc" "${_dir}/task_table.cc" ${_metaworld_tasks}
    LINK envhive_mujoco_envs
    REGISTER_FUNCTION envhive::register_metaworld
    DATA assets_dir=metaworld:assets
    BINDINGS "${_dir}/test_hooks.cc"
    RPATH "${ENVHIVE_MUJOCO_DIR}"
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
