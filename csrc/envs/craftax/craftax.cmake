# ---- Craftax family: envhive._craftax (craftax 1.6.1's Craftax-Classic in C++; no third-party code,
# no runtime dependency: jax.random's threefry, XLA's cumsum and the game are written here) ------
add_library(envhive_craftax_envs STATIC
  csrc/envs/craftax/classic_actions.cc
  csrc/envs/craftax/classic_mobs.cc
  csrc/envs/craftax/classic_obs.cc
  csrc/envs/craftax/classic_world.cc
)
target_compile_options(envhive_craftax_envs PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
target_link_libraries(envhive_craftax_envs PUBLIC envhive_core)
envhive_add_family(NAME _craftax PACKAGE envhive SOURCES csrc/envs/craftax/classic_env.cc
  REGISTER_FUNCTION envhive::craftax::register_classic_tasks)
target_link_libraries(_craftax PRIVATE envhive_craftax_envs)
if(ENVHIVE_BUILD_BENCH)
  add_executable(craftax_loop_bench csrc/envs/craftax/loop_bench.cc csrc/envs/craftax/classic_env.cc)
  target_compile_options(craftax_loop_bench PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
  target_link_libraries(craftax_loop_bench PRIVATE envhive_craftax_envs)
endif()
