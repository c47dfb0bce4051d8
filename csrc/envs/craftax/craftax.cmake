# ---- Craftax family: envhive._craftax (craftax 1.6.1's games in C++; no third-party code, no runtime
# dependency but craftax's textures for the pixel tasks: jax.random's threefry, XLA's cumsum and the
# games are written here) ------------------------------------------------------------------------
add_library(envhive_craftax_envs STATIC
  csrc/envs/craftax/classic_actions.cc
  csrc/envs/craftax/classic_env.cc
  csrc/envs/craftax/classic_mobs.cc
  csrc/envs/craftax/classic_obs.cc
  csrc/envs/craftax/classic_pixels.cc
  csrc/envs/craftax/classic_textures.cc
  csrc/envs/craftax/classic_world.cc
)
target_compile_options(envhive_craftax_envs PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
target_link_libraries(envhive_craftax_envs PUBLIC envhive_core)
envhive_add_family(NAME _craftax PACKAGE envhive SOURCES csrc/bindings/craftax_tasks.cc)
target_link_libraries(_craftax PRIVATE envhive_craftax_envs)
if(ENVHIVE_BUILD_BENCH)
  add_executable(craftax_loop_bench csrc/envs/craftax/loop_bench.cc)
  target_compile_options(craftax_loop_bench PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
  target_link_libraries(craftax_loop_bench PRIVATE envhive_craftax_envs)
endif()
