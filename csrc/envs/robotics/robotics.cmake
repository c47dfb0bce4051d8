# Gymnasium-Robotics: envhive._robotics, on the MuJoCo family's libmujoco and model loading
# (envhive_mujoco_envs, defined in CMakeLists.txt). No third-party source: the models are the XML
# assets of the installed gymnasium-robotics package, found at import by envhive.families.robotics.
if(NOT TARGET envhive_mujoco_envs)
  message(FATAL_ERROR "the robotics family needs the MuJoCo family (ENVHIVE_BUILD_MUJOCO=ON)")
endif()
add_library(envhive_robotics_envs STATIC
  csrc/envs/robotics/robotics.cc
  csrc/envs/robotics/robot_env.cc
  csrc/envs/robotics/fetch.cc
  csrc/envs/robotics/maze.cc
  csrc/envs/robotics/point_maze.cc
  csrc/envs/robotics/ant_maze.cc
  csrc/envs/robotics/adroit.cc
  csrc/envs/robotics/adroit_door.cc
  csrc/envs/robotics/adroit_hammer.cc
  csrc/envs/robotics/adroit_pen.cc
  csrc/envs/robotics/adroit_relocate.cc
  csrc/envs/robotics/hand_env.cc
  csrc/envs/robotics/hand_reach.cc
  csrc/envs/robotics/hand_manipulate.cc
  csrc/envs/robotics/kitchen.cc)
target_compile_options(envhive_robotics_envs PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
target_link_libraries(envhive_robotics_envs PUBLIC envhive_mujoco_envs)
envhive_add_family(NAME _robotics PACKAGE envhive SOURCES csrc/bindings/robotics_tasks.cc)
target_link_libraries(_robotics PRIVATE envhive_robotics_envs)
set_target_properties(_robotics PROPERTIES INSTALL_RPATH "$ORIGIN/../mujoco" BUILD_RPATH "${ENVHIVE_MUJOCO_DIR}")
if(ENVHIVE_BUILD_BENCH)
  add_executable(robotics_loop_bench csrc/envs/robotics/loop_bench.cc)
  target_compile_options(robotics_loop_bench PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
  target_link_libraries(robotics_loop_bench PRIVATE envhive_robotics_envs)
  set_target_properties(robotics_loop_bench PROPERTIES BUILD_RPATH "${ENVHIVE_MUJOCO_DIR}")
endif()
