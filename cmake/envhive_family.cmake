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
#   envhive_add_family(NAME <family> PACKAGE <package> SOURCES ... REGISTER_FUNCTION fn [MODULE m] [DATA ...] ...)
include_guard(GLOBAL)

if(NOT ENVHIVE_CSRC_DIR OR NOT EXISTS "${ENVHIVE_CSRC_DIR}/core/task.h")
  message(FATAL_ERROR "envhive_family.cmake: set ENVHIVE_CSRC_DIR to the folder holding core/ and bindings/")
endif()
if(NOT ENVHIVE_VERSION)
  message(FATAL_ERROR "envhive_family.cmake: set ENVHIVE_VERSION before including it")
endif()

set(ENVHIVE_CORE_SOURCES
  core/env_stepper.cc core/family_data.cc core/numpy_kernels.cc core/output_ring.cc core/pool.cc core/registry.cc core/standby.cc
  core/work_queue.cc)
# Compiled into every family module (a per-module C API, e.g. for XLA, goes here too: the SDK ships
# whatever these lists name).
set(ENVHIVE_BINDING_SOURCES bindings/module.cc bindings/family_registration.cc bindings/native_pool.cc bindings/spec_types.cc
  bindings/call_front.cc
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

# envhive_add_family(NAME <family> PACKAGE <python package> SOURCES <file>...
#                    REGISTER_FUNCTION <qualified::function>
#                    [MODULE <module>] [DATA <key>=<package>:<path>...] [RESOLVER] [LINK <library or target>...]
#                    [INCLUDE <dir>...] [BINDINGS <file>] [LOOP_BENCH <file>] [RPATH <dir>] [INSTALL_DIR <dir>])
#
# One family of tasks, in the extension module <package>.<module> (MODULE defaults to NAME; several
# families may share one module, as classic control, toy text and the engine's test tasks share
# envhive._native). The family is a static library, envhive_<NAME>_envs, of SOURCES (with INCLUDE
# and LINK), which define
#   void <function>(envhive::TaskRegistry&)                              (no DATA), or
#   void <function>(envhive::TaskRegistry&, const envhive::FamilyData&)  (with DATA or RESOLVER)
# in any namespace. DATA names what the register function is handed when the module loads: each
# <key> is a file or folder of an installed Python package (`gymnasium:envs/mujoco/assets`,
# `ale_py:roms`), found by envhive's Python side (and by this build, for the task manifest).
# RESOLVER: the family's Python descriptor (src/envhive/families/<family>.py) has a resolver of
# files built on demand (FamilyData::resolve: dm_control's model XML). BINDINGS: a source of the family's own Python functions (defines
# `void envhive::bind_<NAME>_extras(nanobind::module_&)`, e.g. test hooks). LOOP_BENCH: the
# family's single-thread C++ step loop, built as <NAME>_loop_bench when ENVHIVE_BUILD_BENCH is ON.
# RPATH: where the module finds a shared library it links (libmujoco).
#
# Every module is built once all families are declared (at the end of the configure step): the
# binding sources, the engine core and its families' libraries, with a generated file that
# registers each family when envhive loads the module. After linking, the build runs the module
# once to write its task manifest (<module>.tasks.json) and type stubs (<module>.pyi); all three
# install into INSTALL_DIR (default: the package's folder, relative to the install prefix, which is
# the wheel's root under scikit-build-core).
function(envhive_add_family)
  cmake_parse_arguments(PARSE_ARGV 0 arg "RESOLVER" "NAME;MODULE;PACKAGE;REGISTER_FUNCTION;INSTALL_DIR;BINDINGS;LOOP_BENCH;RPATH"
                        "SOURCES;DATA;LINK;INCLUDE")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "envhive_add_family: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(_required NAME PACKAGE SOURCES REGISTER_FUNCTION)
    if(NOT arg_${_required})
      message(FATAL_ERROR "envhive_add_family: ${_required} is required")
    endif()
  endforeach()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "envhive_add_family: NAME '${arg_NAME}' is not an identifier")
  endif()
  if(NOT arg_MODULE)
    set(arg_MODULE "${arg_NAME}")
  endif()
  if(NOT arg_MODULE MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "envhive_add_family: MODULE '${arg_MODULE}' is not a Python module name")
  endif()
  if(NOT arg_PACKAGE MATCHES "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$")
    message(FATAL_ERROR "envhive_add_family: PACKAGE '${arg_PACKAGE}' is not a Python package name")
  endif()
  if(NOT arg_REGISTER_FUNCTION MATCHES "^(::)?([A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "envhive_add_family: REGISTER_FUNCTION '${arg_REGISTER_FUNCTION}' is not a C++ function name")
  endif()
  foreach(_decl IN LISTS arg_DATA)
    if(NOT _decl MATCHES "^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z_][A-Za-z0-9_.]*:[^\"\\]*$")
      message(FATAL_ERROR "envhive_add_family: DATA '${_decl}' is not <key>=<package>:<path>")
    endif()
  endforeach()
  if(NOT DEFINED nanobind_DIR OR NOT COMMAND nanobind_add_module)
    message(FATAL_ERROR "envhive_add_family: call envhive_find_build_deps() first (find_package(envhive) does)")
  endif()
  envhive_add_core()

  # The family's library: its tasks, also linked by its loop benchmark.
  set(lib envhive_${arg_NAME}_envs)
  add_library(${lib} STATIC ${arg_SOURCES})
  _envhive_cxx_settings(${lib})
  target_include_directories(${lib} PUBLIC ${arg_INCLUDE})
  target_link_libraries(${lib} PUBLIC envhive_core ${arg_LINK})
  if(ENVHIVE_BUILD_BENCH AND arg_LOOP_BENCH)
    add_executable(${arg_NAME}_loop_bench ${arg_LOOP_BENCH})
    _envhive_cxx_settings(${arg_NAME}_loop_bench)
    target_link_libraries(${arg_NAME}_loop_bench PRIVATE ${lib})
    if(arg_RPATH)
      set_target_properties(${arg_NAME}_loop_bench PROPERTIES BUILD_RPATH "${arg_RPATH}")
    endif()
  endif()

  # What the module needs of this family, kept until every family is declared.
  set(_module "${arg_PACKAGE}.${arg_MODULE}")
  get_property(_modules GLOBAL PROPERTY ENVHIVE_MODULES)
  if(NOT _module IN_LIST _modules)
    set_property(GLOBAL APPEND PROPERTY ENVHIVE_MODULES "${_module}")
    if(arg_INSTALL_DIR)
      set_property(GLOBAL PROPERTY "ENVHIVE_MODULE_INSTALL_DIR_${_module}" "${arg_INSTALL_DIR}")
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY "ENVHIVE_MODULE_FAMILIES_${_module}" "${arg_NAME}")
  set_property(GLOBAL PROPERTY "ENVHIVE_FAMILY_REGISTER_${arg_NAME}" "${arg_REGISTER_FUNCTION}")
  set_property(GLOBAL PROPERTY "ENVHIVE_FAMILY_DATA_${arg_NAME}" "${arg_DATA}")
  if(arg_DATA OR arg_RESOLVER)
    set_property(GLOBAL PROPERTY "ENVHIVE_FAMILY_TAKES_DATA_${arg_NAME}" TRUE)
  endif()
  set_property(GLOBAL PROPERTY "ENVHIVE_FAMILY_BINDINGS_${arg_NAME}" "${arg_BINDINGS}")
  if(arg_RPATH)
    set_property(GLOBAL APPEND PROPERTY "ENVHIVE_MODULE_RPATH_${_module}" "${arg_RPATH}")
  endif()
  get_property(_deferred GLOBAL PROPERTY ENVHIVE_MODULES_DEFERRED)
  if(NOT _deferred)
    set_property(GLOBAL PROPERTY ENVHIVE_MODULES_DEFERRED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _envhive_add_modules)
  endif()
endfunction()

# The C++ declaration of a register function (any namespace), with or without its FamilyData.
function(_envhive_declaration fn with_data out)
  string(REGEX REPLACE "^::" "" fn "${fn}")
  set(params "envhive::TaskRegistry& registry")
  if(with_data)
    string(APPEND params ", const envhive::FamilyData& data")
  endif()
  if(fn MATCHES "^(.*)::([^:]+)$")
    set(${out} "namespace ${CMAKE_MATCH_1} {\nvoid ${CMAKE_MATCH_2}(${params});\n}" PARENT_SCOPE)
  else()
    set(${out} "void ${fn}(${params});" PARENT_SCOPE)
  endif()
endfunction()

# Every declared module (run once, deferred to the end of the top-level directory).
function(_envhive_add_modules)
  get_property(_modules GLOBAL PROPERTY ENVHIVE_MODULES)
  foreach(_module IN LISTS _modules)
    _envhive_add_module("${_module}")
  endforeach()
endfunction()

function(_envhive_add_module qualified)
  string(REGEX MATCH "^(.*)\\.([^.]+)$" _ "${qualified}")
  set(package "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  get_property(install_dir GLOBAL PROPERTY "ENVHIVE_MODULE_INSTALL_DIR_${qualified}")
  if(NOT install_dir)
    string(REPLACE "." "/" install_dir "${package}")
  endif()
  get_property(families GLOBAL PROPERTY "ENVHIVE_MODULE_FAMILIES_${qualified}")

  # The generated file: each family's register function, its DATA declarations, its bindings.
  set(declarations "")
  set(calls "")
  set(data_table "")
  set(extras_declarations "")
  set(extras_calls "")
  set(family_libs "")
  set(family_sources "")
  set(family_names "")
  foreach(family IN LISTS families)
    get_property(fn GLOBAL PROPERTY "ENVHIVE_FAMILY_REGISTER_${family}")
    get_property(data GLOBAL PROPERTY "ENVHIVE_FAMILY_DATA_${family}")
    get_property(bindings GLOBAL PROPERTY "ENVHIVE_FAMILY_BINDINGS_${family}")
    get_property(takes_data GLOBAL PROPERTY "ENVHIVE_FAMILY_TAKES_DATA_${family}")
    _envhive_declaration("${fn}" "${takes_data}" declaration)
    string(APPEND declarations "${declaration}\n")
    string(REGEX REPLACE "^::" "" fn "${fn}")
    if(takes_data)
      string(APPEND calls "  ${fn}(registry, data.family(\"${family}\"));\n")
    else()
      string(APPEND calls "  ${fn}(registry);\n")
    endif()
    foreach(decl IN LISTS data)
      string(REGEX MATCH "^([^=]+)=([^:]+):(.*)$" _ "${decl}")
      string(APPEND data_table "      {\"${family}\", \"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\", \"${CMAKE_MATCH_3}\"},\n")
    endforeach()
    if(bindings)
      string(APPEND extras_declarations "void bind_${family}_extras(nanobind::module_& m);\n")
      string(APPEND extras_calls "  bind_${family}_extras(m);\n")
      list(APPEND family_sources "${bindings}")
    endif()
    list(APPEND family_libs envhive_${family}_envs)
    string(APPEND family_names "\"${family}\", ")
  endforeach()
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/envhive_generated/${name}_module_tasks.cc")
  file(CONFIGURE OUTPUT "${generated}" @ONLY CONTENT
"// Generated by envhive_add_family (cmake/envhive_family.cmake) for ${qualified}.
#include \"bindings/module_tasks.h\"

@declarations@
namespace envhive {
@extras_declarations@
void register_module_tasks(TaskRegistry& registry, const ModuleData& data) {
@calls@}

const std::vector<DataDeclaration>& module_data_declarations() {
  static const std::vector<DataDeclaration> declarations = {
@data_table@  };
  return declarations;
}

const std::vector<std::string>& module_families() {
  static const std::vector<std::string> families = {@family_names@};
  return families;
}

void bind_module_extras(nanobind::module_& m) {
  (void)m;
@extras_calls@}
}  // namespace envhive
")

  list(TRANSFORM ENVHIVE_BINDING_SOURCES PREPEND "${ENVHIVE_CSRC_DIR}/" OUTPUT_VARIABLE _bindings)
  # Every module binds the same classes (NativePool, SpaceSpec, ...): each gets its own nanobind
  # domain, named after the module's full name (unique in any one Python process).
  string(MAKE_C_IDENTIFIER "envhive_${qualified}" _domain)
  nanobind_add_module(${name} NB_STATIC NB_DOMAIN ${_domain} ${_bindings} "${generated}" ${family_sources})
  _envhive_cxx_settings(${name})
  target_include_directories(${name} PRIVATE "${ENVHIVE_NUMPY_INCLUDE_DIR}" "${ENVHIVE_CSRC_DIR}")
  target_compile_definitions(${name} PRIVATE ENVHIVE_MODULE_NAME=${name} ENVHIVE_VERSION_STRING="${ENVHIVE_VERSION}"
    NPY_NO_DEPRECATED_API=NPY_1_26_API_VERSION NPY_TARGET_VERSION=NPY_1_26_API_VERSION)
  target_link_libraries(${name} PRIVATE envhive_core ${family_libs} ${CMAKE_DL_LIBS})  # dl: numpy's BLAS
  # Keep the static libraries' symbols (the core's, a family's third-party library's) out of the
  # dynamic symbol table, and pack relative relocations where the toolchain can: both shrink what
  # loading a module maps, and no module can bind another's copy of the engine.
  target_link_options(${name} PRIVATE ${ENVHIVE_MODULE_LINK_OPTIONS})
  get_property(rpath GLOBAL PROPERTY "ENVHIVE_MODULE_RPATH_${qualified}")
  if(rpath)
    list(REMOVE_DUPLICATES rpath)
    # At run time the module finds the library next door ($ORIGIN/../<package folder>); here, where
    # the build found it.
    set(install_rpath "")
    foreach(dir IN LISTS rpath)
      get_filename_component(folder "${dir}" NAME)
      list(APPEND install_rpath "$ORIGIN/../${folder}")
    endforeach()
    set_target_properties(${name} PROPERTIES INSTALL_RPATH "${install_rpath}" BUILD_RPATH "${rpath}")
  endif()
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
