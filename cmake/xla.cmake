# ---- envhive._xla: the XLA FFI targets (envhive.xla, env.xla()) -------------------------------
# One module for every family: it steps any module's pools through their C interface
# (csrc/bindings/pool_abi.h), so no family module needs XLA's headers. It needs only the XLA FFI
# headers that jaxlib ships (header-only, a versioned C ABI; nothing of jaxlib is linked): jaxlib is
# a build requirement (pyproject.toml), so wheels always carry _xla. ENVHIVE_BUILD_XLA=AUTO builds
# it where the headers are found and says so where they are not (e.g. the sanitizer venvs).
set(ENVHIVE_BUILD_XLA "AUTO" CACHE STRING "Build envhive._xla: AUTO (where jaxlib's FFI headers are), ON or OFF")
set_property(CACHE ENVHIVE_BUILD_XLA PROPERTY STRINGS AUTO ON OFF)

if(NOT ENVHIVE_BUILD_XLA STREQUAL "OFF")
  # Ask jaxlib itself (importing jax would start its backends): <jaxlib>/include is jax.ffi.include_dir().
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
      "import importlib.util, pathlib; s = importlib.util.find_spec('jaxlib'); print(pathlib.Path(s.origin).parent / 'include' if s else '')"
    OUTPUT_VARIABLE ENVHIVE_XLA_INCLUDE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _xla_found ERROR_QUIET)
  if(_xla_found EQUAL 0 AND EXISTS "${ENVHIVE_XLA_INCLUDE_DIR}/xla/ffi/api/ffi.h")
    message(STATUS "envhive: XLA FFI headers ${ENVHIVE_XLA_INCLUDE_DIR}")
    nanobind_add_module(_xla NB_STATIC NB_DOMAIN envhive_xla
      csrc/xla/module.cc csrc/xla/calls.cc csrc/xla/ffi_cpu.cc csrc/xla/staged_call.cc csrc/xla/ffi_cuda.cc
      csrc/xla/ffi_cuda_twin.cc)
    target_include_directories(_xla SYSTEM PRIVATE "${ENVHIVE_XLA_INCLUDE_DIR}")  # SYSTEM: XLA's headers under -Wall
    target_include_directories(_xla PRIVATE csrc)
    target_compile_options(_xla PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
    target_compile_definitions(_xla PRIVATE ENVHIVE_VERSION_STRING="${ENVHIVE_VERSION}")
    target_link_libraries(_xla PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
    target_link_options(_xla PRIVATE ${ENVHIVE_MODULE_LINK_OPTIONS})
    install(TARGETS _xla LIBRARY DESTINATION envhive)
  elseif(ENVHIVE_BUILD_XLA STREQUAL "ON")
    message(FATAL_ERROR "envhive: ENVHIVE_BUILD_XLA=ON but jaxlib's XLA FFI headers were not found: "
                        "install the pinned jaxlib build requirement (see pyproject.toml)")
  else()
    message(STATUS "envhive: jaxlib's XLA FFI headers not found: envhive._xla (env.xla()) is not built")
  endif()
endif()
