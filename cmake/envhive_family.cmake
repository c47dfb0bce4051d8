# How an envhive family module is built: the one definition, used by the repository's
# CMakeLists.txt for the built-in families and by the installed SDK (envhiveConfig.cmake, found
# with `find_package(envhive CONFIG)`) for out-of-tree plug-ins. See docs/cpp-envs.md.
#
# Every family module compiles the binding sources and links the engine core statically, with its
# own nanobind domain: it is a complete engine for its own tasks and shares no C++ ABI with any
# other module (envhive's Python package talks to each through Python objects only).
#
# Set before include():
#   ENVHIVE_CSRC_DIR  the folder holding core/ and bindings/ (the repository's csrc/, the SDK's csrc/)
#   ENVHIVE_VERSION   the envhive version the modules report (envhive.catalog refuses any other)
# Provides:
#   ENVHIVE_CORE_SOURCES, ENVHIVE_BINDING_SOURCES (relative to ENVHIVE_CSRC_DIR; the SDK ships them and
#                                           every header of core/ and bindings/)
#   ENVHIVE_COMPILE_OPTIONS                 the compiler options of every envhive target
#   envhive_add_core()                      the target envhive_core (the engine, a static library)
#   envhive_find_build_deps()               Python, nanobind and numpy of the build environment (a macro)
#   envhive_add_family(NAME ... PACKAGE ... SOURCES ... [REGISTER_FUNCTION fn] [INSTALL_DIR dir])
include_guard(GLOBAL)

if(NOT ENVHIVE_CSRC_DIR OR NOT EXISTS "${ENVHIVE_CSRC_DIR}/core/task.h")
  message(FATAL_ERROR "envhive_family.cmake: set ENVHIVE_CSRC_DIR to the folder holding core/ and bindings/")
endif()
if(NOT ENVHIVE_VERSION)
  message(FATAL_ERROR "envhive_family.cmake: set ENVHIVE_VERSION before including it")
endif()

set(ENVHIVE_CORE_SOURCES
  core/env_stepper.cc core/numpy_kernels.cc core/output_ring.cc core/pool.cc core/registry.cc core/standby.cc
  core/work_queue.cc)
# Compiled into every family module (a per-module C API, e.g. for XLA, goes here too: the SDK ships
# whatever these lists name).
set(ENVHIVE_BINDING_SOURCES bindings/module.cc bindings/native_pool.cc bindings/spec_types.cc bindings/call_front.cc
  bindings/batch_views.cc bindings/dm_columns.cc bindings/frames.cc bindings/numpy_kernel_install.cc bindings/numpy_views.cc
  bindings/pool_abi.cc)
set(ENVHIVE_METADATA_SCRIPT "${ENVHIVE_CSRC_DIR}/bindings/write_module_metadata.py")

set(ENVHIVE_COMPILE_OPTIONS -ffp-contract=off -Wall -Wextra)  # no FMA contraction: match numpy

# The environment the build runs freshly linked modules in (their manifest and stubs), e.g.
# "LD_PRELOAD=/path/libasan.so" for a sanitizer build (tools/sanitize.sh).
set(ENVHIVE_MODULE_RUN_ENV "" CACHE STRING "VAR=value entries for running freshly built modules")

function(_envhive_cxx_settings target)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${target} PRIVATE ${ENVHIVE_COMPILE_OPTIONS})
endfunction()

# The engine (pool, registry), compiled once per build tree and linked into each of its modules.
function(envhive_add_core)
  if(TARGET envhive_core)
    return()
  endif()
  find_package(Threads REQUIRED)
  list(TRANSFORM ENVHIVE_CORE_SOURCES PREPEND "${ENVHIVE_CSRC_DIR}/" OUTPUT_VARIABLE _sources)
  add_library(envhive_core STATIC ${_sources})
  target_include_directories(envhive_core PUBLIC "${ENVHIVE_CSRC_DIR}")
  target_link_libraries(envhive_core PUBLIC Threads::Threads)
  target_compile_features(envhive_core PUBLIC cxx_std_20)
  _envhive_cxx_settings(envhive_core)
endfunction()

# Python, nanobind and numpy of the environment the build runs in. A macro: nanobind's CMake
# package keeps what nanobind_add_module needs in variables of the scope that found it.
macro(envhive_find_build_deps)
  if(NOT ENVHIVE_BUILD_DEPS_FOUND)
    find_package(Python 3.11 REQUIRED COMPONENTS Interpreter Development.Module)
    # Use the nanobind of the build environment, never one that happens to sit on a system path.
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                    OUTPUT_VARIABLE nanobind_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
    find_package(nanobind CONFIG REQUIRED)
    execute_process(COMMAND "${Python_EXECUTABLE}" -c "import numpy; print(numpy.get_include())"
                    OUTPUT_VARIABLE ENVHIVE_NUMPY_INCLUDE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
    include(CheckLinkerFlag)
    set(ENVHIVE_MODULE_LINK_OPTIONS "")
    foreach(_envhive_flag "LINKER:--exclude-libs,ALL" "LINKER:-z,pack-relative-relocs")
      string(MAKE_C_IDENTIFIER "ENVHIVE_LD${_envhive_flag}" _envhive_var)
      check_linker_flag(CXX "${_envhive_flag}" ${_envhive_var})
      if(${_envhive_var})
        list(APPEND ENVHIVE_MODULE_LINK_OPTIONS "${_envhive_flag}")
      endif()
    endforeach()
    set(ENVHIVE_BUILD_DEPS_FOUND TRUE)
  endif()
endmacro()

# envhive_add_family(NAME <module> PACKAGE <python package> SOURCES <file>...
#                    [REGISTER_FUNCTION <qualified::function>] [INSTALL_DIR <dir>])
#
# Builds the extension module <package>.<module>: the binding sources, the engine core and SOURCES,
# which register the module's tasks. With REGISTER_FUNCTION, SOURCES define
# `void <function>(envhive::TaskRegistry&)` (any namespace) and nothing else is needed; without it,
# they define envhive::register_module_tasks and envhive::bind_module_extras (bindings/module_tasks.h).
# After linking, the build runs the module once to write its task manifest (<module>.tasks.json)
# and type stubs (<module>.pyi); all three install into INSTALL_DIR (default: the package's folder,
# relative to the install prefix, which is the wheel's root under scikit-build-core).
function(envhive_add_family)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PACKAGE;REGISTER_FUNCTION;INSTALL_DIR" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "envhive_add_family: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(_required NAME PACKAGE SOURCES)
    if(NOT arg_${_required})
      message(FATAL_ERROR "envhive_add_family: ${_required} is required")
    endif()
  endforeach()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "envhive_add_family: NAME '${arg_NAME}' is not a Python module name")
  endif()
  if(NOT arg_PACKAGE MATCHES "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$")
    message(FATAL_ERROR "envhive_add_family: PACKAGE '${arg_PACKAGE}' is not a Python package name")
  endif()
  if(NOT DEFINED nanobind_DIR OR NOT COMMAND nanobind_add_module)
    message(FATAL_ERROR "envhive_add_family: call envhive_find_build_deps() first (find_package(envhive) does)")
  endif()
  envhive_add_core()
  set(name ${arg_NAME})
  set(qualified "${arg_PACKAGE}.${name}")
  if(arg_INSTALL_DIR)
    set(install_dir "${arg_INSTALL_DIR}")
  else()
    string(REPLACE "." "/" install_dir "${arg_PACKAGE}")
  endif()

  set(sources ${arg_SOURCES})
  if(arg_REGISTER_FUNCTION)
    if(NOT arg_REGISTER_FUNCTION MATCHES "^(::)?([A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "envhive_add_family: REGISTER_FUNCTION '${arg_REGISTER_FUNCTION}' is not a C++ function name")
    endif()
    string(REGEX REPLACE "^::" "" _fn "${arg_REGISTER_FUNCTION}")
    string(REGEX MATCH "^(.*)::([^:]+)$" _qualified_fn "${_fn}")
    if(_qualified_fn)
      set(_declaration "namespace ${CMAKE_MATCH_1} {\nvoid ${CMAKE_MATCH_2}(envhive::TaskRegistry& registry);\n}")
    else()
      set(_declaration "void ${_fn}(envhive::TaskRegistry& registry);")
    endif()
    set(_generated "${CMAKE_CURRENT_BINARY_DIR}/envhive_generated/${name}_module_tasks.cc")
    file(CONFIGURE OUTPUT "${_generated}" @ONLY CONTENT
"// Generated by envhive_add_family(NAME ${name} REGISTER_FUNCTION ${arg_REGISTER_FUNCTION}).
#include \"bindings/module_tasks.h\"

${_declaration}

void envhive::register_module_tasks(envhive::TaskRegistry& registry) { ${_fn}(registry); }
void envhive::bind_module_extras(nanobind::module_&) {}
")
    list(APPEND sources "${_generated}")
  endif()

  list(TRANSFORM ENVHIVE_BINDING_SOURCES PREPEND "${ENVHIVE_CSRC_DIR}/" OUTPUT_VARIABLE _bindings)
  # Every module binds the same classes (NativePool, SpaceSpec, ...): each gets its own nanobind
  # domain, named after the module's full name (unique in any one Python process).
  string(MAKE_C_IDENTIFIER "envhive_${qualified}" _domain)
  nanobind_add_module(${name} NB_STATIC NB_DOMAIN ${_domain} ${_bindings} ${sources})
  _envhive_cxx_settings(${name})
  target_include_directories(${name} PRIVATE "${ENVHIVE_NUMPY_INCLUDE_DIR}" "${ENVHIVE_CSRC_DIR}")
  target_compile_definitions(${name} PRIVATE ENVHIVE_MODULE_NAME=${name} ENVHIVE_VERSION_STRING="${ENVHIVE_VERSION}"
    NPY_NO_DEPRECATED_API=NPY_1_26_API_VERSION NPY_TARGET_VERSION=NPY_1_26_API_VERSION)
  target_link_libraries(${name} PRIVATE envhive_core ${CMAKE_DL_LIBS})  # dl: numpy's BLAS (numpy_kernel_install.cc)
  # Keep the static libraries' symbols (the core's, a family's third-party library's) out of the
  # dynamic symbol table, and pack relative relocations where the toolchain can: both shrink what
  # loading a module maps, and no module can bind another's copy of the engine.
  target_link_options(${name} PRIVATE ${ENVHIVE_MODULE_LINK_OPTIONS})
  install(TARGETS ${name} LIBRARY DESTINATION "${install_dir}")

  # The task manifest lets envhive list and describe every task without loading the module, and the
  # stubs type it; see bindings/write_module_metadata.py and envhive/catalog.py.
  set(_meta "${CMAKE_CURRENT_BINARY_DIR}/envhive_metadata/${qualified}")
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_meta}"
    COMMAND "${CMAKE_COMMAND}" -E env ${ENVHIVE_MODULE_RUN_ENV}
            "${Python_EXECUTABLE}" "${ENVHIVE_METADATA_SCRIPT}" "$<TARGET_FILE:${name}>" "${qualified}" "${_meta}"
    COMMENT "envhive: task manifest and stubs of ${qualified}" VERBATIM)
  install(FILES "${_meta}/${name}.tasks.json" "${_meta}/${name}.pyi" DESTINATION "${install_dir}" OPTIONAL)
endfunction()
