# ALE (the Arcade Learning Environment, GPL-2.0) as a static library for the _atari module only.
#
# The source is the ale-py sdist on PyPI (it holds ALE's full C++ tree), fetched at configure time
# with pip itself, checked against a pinned hash, and built once into a cache folder keyed by the
# ALE version, the compiler and the flags. Later configures (every isolated `pip install`, every
# `make install`) find the finished library there and neither refetch nor recompile it.
#
# Defines the imported target `envhive_ale` (libale.a, include/ and include/ale, zlib, threads).
# Nothing from ALE is committed to envhive; the ROMs come from the installed ale-py wheel at run
# time (see csrc/envs/atari/atari.cc), so the runtime pin in pyproject.toml must match this one.

set(ENVHIVE_ALE_VERSION "0.12.1")
set(ENVHIVE_ALE_SDIST_SHA256 "c503d574c5983e1063b451201ccb779d935919c0f6bf116fb0f4f8aa4c86d249")

set(ENVHIVE_ALE_CACHE_DIR "$ENV{ENVHIVE_ALE_CACHE_DIR}" CACHE PATH
    "Where ALE is fetched and built once (default: <source>/build/ale-cache; env ENVHIVE_ALE_CACHE_DIR)")
if(NOT ENVHIVE_ALE_CACHE_DIR)
  set(ENVHIVE_ALE_CACHE_DIR "${CMAKE_SOURCE_DIR}/build/ale-cache")
endif()

# ALE turns on LTO for Release builds, which leaves compiler-internal objects in libale.a that no
# other compiler version can link; RelWithDebInfo skips LTO and -O3 keeps the speed (about 3% off).
set(_ale_flags "-O3 -DNDEBUG")
string(SHA1 _ale_key "${CMAKE_CXX_COMPILER_ID};${CMAKE_CXX_COMPILER_VERSION};${_ale_flags};${CMAKE_SYSTEM_PROCESSOR}")
string(SUBSTRING "${_ale_key}" 0 10 _ale_key)
set(_ale_root "${ENVHIVE_ALE_CACHE_DIR}/ale-${ENVHIVE_ALE_VERSION}-${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}-${_ale_key}")
set(_ale_prefix "${_ale_root}/install")
set(_ale_lib "${_ale_prefix}/lib/${CMAKE_STATIC_LIBRARY_PREFIX}ale${CMAKE_STATIC_LIBRARY_SUFFIX}")
set(_ale_stamp "${_ale_root}/complete.stamp")

set(_ale_help "To build envhive without the Atari family, configure with -DENVHIVE_BUILD_ATARI=OFF \
(pip install . -Ccmake.define.ENVHIVE_BUILD_ATARI=OFF).")

function(_envhive_ale_fail what log)
  set(_tail "")
  if(EXISTS "${log}")
    file(READ "${log}" _text)
    string(LENGTH "${_text}" _n)
    if(_n GREATER 6000)
      math(EXPR _from "${_n} - 6000")
      string(SUBSTRING "${_text}" ${_from} 6000 _text)
    endif()
    set(_tail "\n--- last lines of ${log} ---\n${_text}")
  endif()
  message(FATAL_ERROR "envhive: ${what}${_tail}\n${_ale_help}")
endfunction()

if(NOT EXISTS "${_ale_stamp}")
  file(MAKE_DIRECTORY "${_ale_root}")
  # Two builds sharing the cache (parallel pip runs) must not build into the same folder at once.
  file(LOCK "${_ale_root}/.lock" GUARD FILE TIMEOUT 1800 RESULT_VARIABLE _lock_rc)
  if(NOT _lock_rc EQUAL 0)
    message(FATAL_ERROR "envhive: could not lock ${_ale_root}/.lock: ${_lock_rc}")
  endif()
endif()

if(NOT EXISTS "${_ale_stamp}")
  set(_src "${_ale_root}/src/ale_py-${ENVHIVE_ALE_VERSION}")
  if(NOT EXISTS "${_src}/CMakeLists.txt")
    # --- fetch: the ordinary package client, hash-checked -------------------------------------
    set(_dl "${_ale_root}/download")
    file(MAKE_DIRECTORY "${_dl}")
    file(WRITE "${_dl}/requirements.txt"
         "ale-py==${ENVHIVE_ALE_VERSION} --hash=sha256:${ENVHIVE_ALE_SDIST_SHA256}\n")
    message(STATUS "envhive: fetching the ALE ${ENVHIVE_ALE_VERSION} source (ale-py sdist) with pip")
    # --no-build-isolation: pip only reads the sdist's metadata (scikit-build-core, already here);
    # an isolated env would install ale-py's heavy build requirements for nothing.
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --no-binary :all: --no-build-isolation
              --require-hashes --disable-pip-version-check --no-input -r "${_dl}/requirements.txt" -d "${_dl}"
      RESULT_VARIABLE _rc OUTPUT_FILE "${_dl}/pip.log" ERROR_FILE "${_dl}/pip.log")
    set(_sdist "${_dl}/ale_py-${ENVHIVE_ALE_VERSION}.tar.gz")
    if(NOT _rc EQUAL 0 OR NOT EXISTS "${_sdist}")
      _envhive_ale_fail("could not fetch the ALE source: `python -m pip download ale-py==${ENVHIVE_ALE_VERSION} \
--no-binary :all:` failed (exit ${_rc}). It needs PyPI (or your pip index) to be reachable and pip \
in the build environment." "${_dl}/pip.log")
    endif()
    file(SHA256 "${_sdist}" _sha)
    if(NOT _sha STREQUAL ENVHIVE_ALE_SDIST_SHA256)
      message(FATAL_ERROR "envhive: ${_sdist} has sha256 ${_sha}, expected ${ENVHIVE_ALE_SDIST_SHA256}")
    endif()
    file(REMOVE_RECURSE "${_ale_root}/src")
    file(ARCHIVE_EXTRACT INPUT "${_sdist}" DESTINATION "${_ale_root}/src")
    if(NOT EXISTS "${_src}/CMakeLists.txt")
      message(FATAL_ERROR "envhive: ${_sdist} did not unpack to ${_src}")
    endif()
  endif()

  # --- build: ALE's own CMake, C++ library only (no Python module, no SDL, no vector env) -------
  set(_bld "${_ale_root}/build")
  file(REMOVE_RECURSE "${_bld}" "${_ale_prefix}")
  message(STATUS "envhive: building ALE ${ENVHIVE_ALE_VERSION} into ${_ale_prefix} (once; about a minute)")
  set(_gen_args -G "${CMAKE_GENERATOR}")
  if(CMAKE_MAKE_PROGRAM)
    list(APPEND _gen_args "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}")
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${_src}" -B "${_bld}" ${_gen_args}
            "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
            -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${_ale_flags}"
            -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_TOOLCHAIN_FILE=
            -DBUILD_CPP_LIB=ON -DBUILD_PYTHON_LIB=OFF -DSDL_SUPPORT=OFF
            -DBUILD_VECTOR_LIB=OFF -DBUILD_VECTOR_XLA_LIB=OFF
            "-DCMAKE_INSTALL_PREFIX=${_ale_prefix}" -DCMAKE_INSTALL_LIBDIR=lib
    RESULT_VARIABLE _rc OUTPUT_FILE "${_ale_root}/configure.log" ERROR_FILE "${_ale_root}/configure.log")
  if(NOT _rc EQUAL 0)
    _envhive_ale_fail("configuring ALE failed (it needs zlib's headers: zlib1g-dev / zlib-devel)."
                      "${_ale_root}/configure.log")
  endif()
  cmake_host_system_information(RESULT _cores QUERY NUMBER_OF_LOGICAL_CORES)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${_bld}" --parallel ${_cores}
                  RESULT_VARIABLE _rc OUTPUT_FILE "${_ale_root}/build.log" ERROR_FILE "${_ale_root}/build.log")
  if(NOT _rc EQUAL 0)
    _envhive_ale_fail("compiling ALE failed." "${_ale_root}/build.log")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${_bld}"
                  RESULT_VARIABLE _rc OUTPUT_FILE "${_ale_root}/install.log" ERROR_FILE "${_ale_root}/install.log")
  if(NOT _rc EQUAL 0 OR NOT EXISTS "${_ale_lib}")
    _envhive_ale_fail("installing ALE into ${_ale_prefix} failed." "${_ale_root}/install.log")
  endif()
  # The sdist, sources and objects are not needed once the library is installed.
  file(REMOVE_RECURSE "${_bld}" "${_ale_root}/src")
  file(GLOB _sdists "${_ale_root}/download/*.tar.gz")
  if(_sdists)
    file(REMOVE ${_sdists})
  endif()
  file(WRITE "${_ale_stamp}" "ALE ${ENVHIVE_ALE_VERSION} built with ${CMAKE_CXX_COMPILER} ${_ale_flags}\n")
  file(LOCK "${_ale_root}/.lock" RELEASE)
else()
  message(STATUS "envhive: using the cached ALE ${ENVHIVE_ALE_VERSION} in ${_ale_prefix}")
endif()

find_package(ZLIB REQUIRED)
add_library(envhive_ale STATIC IMPORTED GLOBAL)
set_target_properties(envhive_ale PROPERTIES
  IMPORTED_LOCATION "${_ale_lib}"
  INTERFACE_INCLUDE_DIRECTORIES "${_ale_prefix}/include;${_ale_prefix}/include/ale"
  INTERFACE_LINK_LIBRARIES "ZLIB::ZLIB;Threads::Threads"
  INTERFACE_COMPILE_DEFINITIONS "ENVHIVE_ALE_VERSION=\"${ENVHIVE_ALE_VERSION}\"")
