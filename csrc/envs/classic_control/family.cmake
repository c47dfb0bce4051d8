# Classic control (Gymnasium's CartPole, MountainCar, Pendulum, Acrobot): no dependency; in
# envhive._native with toy text. Its frames draw Gymnasium's images (Pendulum's arrow).
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../pygame/pygame.cmake")
envhive_add_family(NAME classic_control MODULE _native PACKAGE envhive
  SOURCES "${CMAKE_CURRENT_LIST_DIR}/classic_control.cc" "${CMAKE_CURRENT_LIST_DIR}/render/scenes.cc"
  LINK envhive_pygame
  REGISTER_FUNCTION envhive::register_classic_control
  DATA images_dir=gymnasium:envs/classic_control/assets)
