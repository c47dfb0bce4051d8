# Toy text (Gymnasium's FrozenLake, Taxi, CliffWalking, Blackjack): no dependency; in envhive._native.
# Its frames draw Gymnasium's pixel art.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../pygame/pygame.cmake")
envhive_add_family(NAME toy_text MODULE _native PACKAGE envhive
  SOURCES "${CMAKE_CURRENT_LIST_DIR}/toy_text.cc" "${CMAKE_CURRENT_LIST_DIR}/frozen_lake.cc"
          "${CMAKE_CURRENT_LIST_DIR}/taxi.cc" "${CMAKE_CURRENT_LIST_DIR}/blackjack.cc"
          "${CMAKE_CURRENT_LIST_DIR}/render/scenes.cc"
  LINK envhive_pygame
  REGISTER_FUNCTION envhive::register_toy_text
  DATA images_dir=gymnasium:envs/toy_text/img)
