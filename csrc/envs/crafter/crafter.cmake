# ---- Crafter family: envhive._crafter (crafter 1.8.3's game in C++; no third-party code) -------
# Its textures come from the installed crafter package at import (envhive.families.crafter).
add_library(envhive_crafter_envs STATIC
  csrc/envs/crafter/crafter.cc
  csrc/envs/crafter/crafter_env.cc
  csrc/envs/crafter/game.cc
  csrc/envs/crafter/renderer.cc
  csrc/envs/crafter/rules.cc
  csrc/envs/crafter/simplex_noise.cc
  csrc/envs/crafter/textures.cc
  csrc/envs/crafter/world.cc
  csrc/envs/crafter/worldgen.cc
)
target_compile_options(envhive_crafter_envs PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
target_link_libraries(envhive_crafter_envs PUBLIC envhive_core)
envhive_add_family(NAME _crafter PACKAGE envhive SOURCES csrc/bindings/crafter_tasks.cc)
target_link_libraries(_crafter PRIVATE envhive_crafter_envs)
