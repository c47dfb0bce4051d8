# Gymnasium-Robotics, in envhive._mujoco beside Gymnasium's MuJoCo tasks and the DeepMind Control
# Suite: on the same libmujoco and the MuJoCo family's model loading (envhive_mujoco_envs), so one
# copy of envhive's MuJoCo handlers owns libmujoco's hooks. No third-party source: the models are the
# XML assets of the installed gymnasium-robotics package (DATA assets_dir); a maze's model is built
# by the family's Python resolver (src/envhive/families/robotics.py) the first time its task is made.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../mujoco/family.cmake")
option(ENVHIVE_BUILD_ROBOTICS "Build the Gymnasium-Robotics family (in _mujoco)" ON)
if(ENVHIVE_BUILD_MUJOCO AND ENVHIVE_BUILD_ROBOTICS)
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME robotics PACKAGE envhive MODULE _mujoco
    SOURCES "${_dir}/robotics.cc" "${_dir}/robot_env.cc" "${_dir}/fetch.cc" "${_dir}/maze.cc"
            "${_dir}/point_maze.cc" "${_dir}/ant_maze.cc" "${_dir}/adroit.cc" "${_dir}/adroit_door.cc"
            "${_dir}/adroit_hammer.cc" "${_dir}/adroit_pen.cc" "${_dir}/adroit_relocate.cc" "${_dir}/hand_env.cc"
            "${_dir}/hand_reach.cc" "${_dir}/hand_manipulate.cc" "${_dir}/kitchen.cc"
    LINK envhive_mujoco_envs
    REGISTER_FUNCTION envhive::robotics::register_tasks
    DATA assets_dir=gymnasium_robotics:envs/assets
    RESOLVER
    RPATH "${ENVHIVE_MUJOCO_DIR}"
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
