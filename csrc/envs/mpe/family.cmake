# The Multi-Agent Particle Environments (mpe2 1.1.1's scenarios, written in C++: no dependency),
# multi-agent tasks in envhive._mpe. Its resolver (src/envhive/families/mpe.py) draws the text of
# mpe2's frames with pygame.freetype.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/../pygame/pygame.cmake")
set(_mpe_dir "${CMAKE_CURRENT_LIST_DIR}")
envhive_add_family(NAME mpe MODULE _mpe PACKAGE envhive
  SOURCES "${_mpe_dir}/mpe.cc" "${_mpe_dir}/mpe_env.cc" "${_mpe_dir}/world.cc" "${_mpe_dir}/frame.cc" "${_mpe_dir}/partial_observability.cc"
    "${_mpe_dir}/simple.cc" "${_mpe_dir}/simple_spread.cc" "${_mpe_dir}/simple_adversary.cc"
    "${_mpe_dir}/simple_tag.cc" "${_mpe_dir}/simple_push.cc" "${_mpe_dir}/simple_speaker_listener.cc"
    "${_mpe_dir}/simple_reference.cc" "${_mpe_dir}/simple_crypto.cc" "${_mpe_dir}/simple_world_comm.cc"
  LINK envhive_pygame
  REGISTER_FUNCTION envhive::mpe::register_tasks
  RESOLVER
  LOOP_BENCH "${_mpe_dir}/loop_bench.cc")
