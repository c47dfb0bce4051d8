# Gymnasium's MuJoCo tasks: envhive._mujoco, linked against the libmujoco.so.<version> of the
# mujoco-core wheel (a build requirement pinned to the runtime `mujoco` version), never a copy: at
# run time the module finds it next door through RPATH $ORIGIN/../mujoco, and envhive imports
# `mujoco` first so the library the package loaded is the one reused. numpy's libnpyrandom.a
# provides Generator.standard_normal (reset noise). Rendering links no GL: the GL platform (libEGL,
# else libOSMesa) is dlopen'ed by the first frame (render/gl_context.cc). Models: Gymnasium's assets.
include_guard(GLOBAL)
option(ENVHIVE_BUILD_MUJOCO "Build the MuJoCo family module (_mujoco)" ON)
if(ENVHIVE_BUILD_MUJOCO)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
      "import importlib.util, pathlib; s = importlib.util.find_spec('mujoco'); print(next(p for p in (s.submodule_search_locations or []) if (pathlib.Path(p) / 'include/mujoco/mujoco.h').exists()))"
    OUTPUT_VARIABLE ENVHIVE_MUJOCO_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _mj_found)
  if(NOT _mj_found EQUAL 0 OR ENVHIVE_MUJOCO_DIR STREQUAL "")
    message(FATAL_ERROR "MuJoCo headers not found: install the pinned mujoco-core build requirement "
                        "(see pyproject.toml) or configure with -DENVHIVE_BUILD_MUJOCO=OFF")
  endif()
  file(GLOB ENVHIVE_MUJOCO_LIB "${ENVHIVE_MUJOCO_DIR}/libmujoco.so.*")
  list(LENGTH ENVHIVE_MUJOCO_LIB _mj_libs)
  if(NOT _mj_libs EQUAL 1)
    message(FATAL_ERROR "expected one libmujoco.so.<version> in ${ENVHIVE_MUJOCO_DIR}, found: ${ENVHIVE_MUJOCO_LIB}")
  endif()
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
      "import numpy, pathlib; print(pathlib.Path(numpy.__file__).parent / 'random' / 'lib' / 'libnpyrandom.a')"
    OUTPUT_VARIABLE ENVHIVE_NPYRANDOM_LIB OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  if(NOT EXISTS "${ENVHIVE_NPYRANDOM_LIB}")
    message(FATAL_ERROR "numpy's libnpyrandom.a not found at ${ENVHIVE_NPYRANDOM_LIB}")
  endif()
  message(STATUS "envhive: MuJoCo ${ENVHIVE_MUJOCO_LIB}")
  set(_dir "${CMAKE_CURRENT_LIST_DIR}")
  envhive_add_family(NAME mujoco PACKAGE envhive MODULE _mujoco
    SOURCES "${_dir}/mujoco.cc" "${_dir}/mujoco_env.cc" "${_dir}/render/gl_context.cc" "${_dir}/render/scene_renderer.cc"
    INCLUDE "${ENVHIVE_MUJOCO_DIR}/include" "${ENVHIVE_NUMPY_INCLUDE_DIR}"
    LINK "${ENVHIVE_MUJOCO_LIB}" "${ENVHIVE_NPYRANDOM_LIB}" m ${CMAKE_DL_LIBS}
    REGISTER_FUNCTION envhive::register_mujoco
    DATA assets_dir=gymnasium:envs/mujoco/assets
    RPATH "${ENVHIVE_MUJOCO_DIR}"
    LOOP_BENCH "${_dir}/loop_bench.cc")
endif()
