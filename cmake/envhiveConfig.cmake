# find_package(envhive CONFIG): the envhive SDK, installed with envhive (envhive/sdk/ in the
# package; `python -m envhive --cmake-dir` prints this folder). It provides envhive_add_family(),
# which builds an out-of-tree family module exactly as envhive builds its own (see
# envhive_family.cmake and docs/cpp-envs.md):
#
#   find_package(Python 3.11 REQUIRED COMPONENTS Interpreter Development.Module)
#   execute_process(COMMAND "${Python_EXECUTABLE}" -m envhive --cmake-dir
#                   OUTPUT_VARIABLE envhive_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
#   find_package(envhive CONFIG REQUIRED)
#   envhive_add_family(NAME _envs PACKAGE mypkg SOURCES src/register.cc REGISTER_FUNCTION mypkg::register_tasks)
#
# The module is built for this envhive only (ENVHIVE_VERSION); envhive refuses it after an upgrade
# until it is rebuilt.
get_filename_component(_envhive_sdk "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include("${CMAKE_CURRENT_LIST_DIR}/envhive-sdk-info.cmake")  # ENVHIVE_VERSION, ENVHIVE_SDK_* (written by envhive's build)
set(ENVHIVE_CSRC_DIR "${_envhive_sdk}/csrc")
include("${CMAKE_CURRENT_LIST_DIR}/envhive_family.cmake")
envhive_find_build_deps()

# A module holds its own copy of nanobind (static, in its own domain), so another nanobind release
# is safe; another major version is not the API envhive's bindings are written for.
string(REGEX MATCH "^[0-9]+" _envhive_nb_major "${nanobind_VERSION}")
string(REGEX MATCH "^[0-9]+" _envhive_sdk_nb_major "${ENVHIVE_SDK_NANOBIND_VERSION}")
if(NOT _envhive_nb_major STREQUAL _envhive_sdk_nb_major)
  message(FATAL_ERROR "envhive ${ENVHIVE_VERSION} was built with nanobind ${ENVHIVE_SDK_NANOBIND_VERSION}; this build "
                      "environment has nanobind ${nanobind_VERSION} (${nanobind_DIR}): "
                      "pip install \"nanobind==${ENVHIVE_SDK_NANOBIND_VERSION}\"")
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL ENVHIVE_SDK_CXX_COMPILER_ID)
  message(STATUS "envhive: building with ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}; envhive was built "
                 "with ${ENVHIVE_SDK_CXX_COMPILER_ID} ${ENVHIVE_SDK_CXX_COMPILER_VERSION} (fine: modules share no C++ ABI)")
endif()
set(envhive_FOUND TRUE)
