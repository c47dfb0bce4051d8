# Gymnasium's Box2D tasks (LunarLander, BipedalWalker, CarRacing): envhive._box2d, with Box2D (zlib
# licence) built from pybox2d's source distribution (box2d.cmake) into this module only. Its
# renderers share the pygame rasterizer with classic control.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_BOX2D "Build the Box2D family module (_box2d; fetches the Box2D source once)" ON)
if(ENVHIVE_BUILD_BOX2D)
  include("${CMAKE_CURRENT_LIST_DIR}/box2d.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/../pygame/pygame.cmake")
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME box2d PACKAGE envhive MODULE _box2d
    SOURCES "${_dir}/box2d.cc" "${_dir}/lunar_lander.cc" "${_dir}/bipedal_walker.cc" "${_dir}/car_dynamics.cc"
            "${_dir}/car_racing.cc" "${_dir}/render/lunar_lander_scene.cc" "${_dir}/render/bipedal_walker_scene.cc"
            "${_dir}/render/car_racing_scene.cc"
    LINK envhive_box2d_engine envhive_pygame
    REGISTER_FUNCTION envhive::register_box2d
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
