# The official procgen 0.10.7 engine for the Procgen family (family.cmake), fetched into a cache.
#
# The engine is the libenv.so of the official procgen 0.10.7 wheel (Linux x86_64, Qt linked in
# statically, LGPL) with its assets. It is never built, vendored, committed or put into envhive's
# wheel: the module loads it at run time with dlopen(RTLD_LOCAL) from a cache. That cache is filled
# at configure time here (when ENVHIVE_PROCGEN_FETCH is on) the way ale.cmake and box2d.cmake fetch
# their sources -- pip itself, a pinned hash, a folder keyed by version and hash, a lock, a stamp --
# and the module knows its path (ENVHIVE_PROCGEN_BUILD_CACHE). A module whose build cache is gone (a
# wheel installed elsewhere) fills the user's cache on first use through the same pip command
# (envhive.families.procgen.engine_files, which writes the same layout: libenv.so, assets/).
# The engine needs the system's glib at run time (libglib2.0-0; `make install` adds it).

set(ENVHIVE_PROCGEN_VERSION "0.10.7")
set(ENVHIVE_PROCGEN_WHEEL_SHA256 "4b594d14e42f0f2166e59a9e294477b906eb99c90c3343b570b7124cbc865f53")

if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  message(STATUS "envhive: Procgen is not built: the official procgen ${ENVHIVE_PROCGEN_VERSION} engine is a Linux x86_64 "
                 "library (this is ${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR})")
  set(ENVHIVE_PROCGEN_SUPPORTED OFF)
  return()
endif()
set(ENVHIVE_PROCGEN_SUPPORTED ON)

option(ENVHIVE_PROCGEN_FETCH "Fetch the procgen ${ENVHIVE_PROCGEN_VERSION} engine into the build cache at configure time \
(off: the module fetches it into the user's cache on first use)" ON)
set(ENVHIVE_PROCGEN_CACHE_DIR "$ENV{ENVHIVE_PROCGEN_CACHE_DIR}" CACHE PATH
    "Where the procgen engine is unpacked once (default: <source>/build/procgen-cache; env ENVHIVE_PROCGEN_CACHE_DIR)")
if(NOT ENVHIVE_PROCGEN_CACHE_DIR)
  set(ENVHIVE_PROCGEN_CACHE_DIR "${CMAKE_SOURCE_DIR}/build/procgen-cache")
endif()
string(SUBSTRING "${ENVHIVE_PROCGEN_WHEEL_SHA256}" 0 12 _pg_key)
set(_pg_root "${ENVHIVE_PROCGEN_CACHE_DIR}/procgen-${ENVHIVE_PROCGEN_VERSION}-${_pg_key}")
set(_pg_stamp "${_pg_root}/complete.stamp")
set(_pg_command "python -m pip download --no-deps --only-binary :all: --python-version 3.10 \
--platform manylinux2014_x86_64 procgen==${ENVHIVE_PROCGEN_VERSION}")
set(_pg_help "To build envhive without Procgen, configure with -DENVHIVE_BUILD_PROCGEN=OFF \
(pip install . -Ccmake.define.ENVHIVE_BUILD_PROCGEN=OFF); to fetch the engine on first use instead, \
-DENVHIVE_PROCGEN_FETCH=OFF.")

if(ENVHIVE_PROCGEN_FETCH AND NOT EXISTS "${_pg_stamp}")
  file(MAKE_DIRECTORY "${_pg_root}")
  file(LOCK "${_pg_root}/.lock" GUARD FILE TIMEOUT 600 RESULT_VARIABLE _lock_rc)
  if(NOT _lock_rc EQUAL 0)
    message(FATAL_ERROR "envhive: could not lock ${_pg_root}/.lock: ${_lock_rc}")
  endif()
  if(NOT EXISTS "${_pg_stamp}")
    set(_dl "${_pg_root}/download")
    file(REMOVE_RECURSE "${_dl}" "${_pg_root}/unpacked" "${_pg_root}/libenv.so" "${_pg_root}/assets")
    file(MAKE_DIRECTORY "${_dl}")
    file(WRITE "${_dl}/requirements.txt"
         "procgen==${ENVHIVE_PROCGEN_VERSION} --hash=sha256:${ENVHIVE_PROCGEN_WHEEL_SHA256}\n")
    message(STATUS "envhive: fetching the procgen ${ENVHIVE_PROCGEN_VERSION} engine (the official wheel) with pip")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --only-binary :all: --python-version 3.10
              --platform manylinux2014_x86_64 --require-hashes --disable-pip-version-check --no-input
              -r "${_dl}/requirements.txt" -d "${_dl}"
      RESULT_VARIABLE _rc OUTPUT_FILE "${_dl}/pip.log" ERROR_FILE "${_dl}/pip.log")
    file(GLOB _wheels "${_dl}/procgen-${ENVHIVE_PROCGEN_VERSION}-*.whl")
    list(LENGTH _wheels _n_wheels)
    if(NOT _rc EQUAL 0 OR NOT _n_wheels EQUAL 1)
      file(READ "${_dl}/pip.log" _log)
      message(FATAL_ERROR "envhive: could not fetch the procgen engine: `${_pg_command}` failed (exit ${_rc}). It needs \
PyPI (or your pip index) and pip in the build environment.\n${_log}\n${_pg_help}")
    endif()
    file(SHA256 "${_wheels}" _sha)
    if(NOT _sha STREQUAL ENVHIVE_PROCGEN_WHEEL_SHA256)
      message(FATAL_ERROR "envhive: ${_wheels} has sha256 ${_sha}, expected ${ENVHIVE_PROCGEN_WHEEL_SHA256}")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${_wheels}" DESTINATION "${_pg_root}/unpacked" PATTERNS "procgen/data/*")
    if(NOT EXISTS "${_pg_root}/unpacked/procgen/data/prebuilt/libenv.so"
       OR NOT IS_DIRECTORY "${_pg_root}/unpacked/procgen/data/assets")
      message(FATAL_ERROR "envhive: ${_wheels} holds no procgen/data/prebuilt/libenv.so and assets/")
    endif()
    file(RENAME "${_pg_root}/unpacked/procgen/data/prebuilt/libenv.so" "${_pg_root}/libenv.so")
    file(RENAME "${_pg_root}/unpacked/procgen/data/assets" "${_pg_root}/assets")
    file(REMOVE_RECURSE "${_pg_root}/unpacked" "${_dl}")
    file(WRITE "${_pg_stamp}" "procgen ${ENVHIVE_PROCGEN_VERSION} wheel sha256 ${ENVHIVE_PROCGEN_WHEEL_SHA256}\n")
  endif()
  file(LOCK "${_pg_root}/.lock" RELEASE)
elseif(ENVHIVE_PROCGEN_FETCH)
  message(STATUS "envhive: using the cached procgen ${ENVHIVE_PROCGEN_VERSION} engine in ${_pg_root}")
endif()

# The build cache the module looks in first (a wheel installed elsewhere finds none there and uses
# the user's cache): the folder, whether or not this configure filled it.
set(ENVHIVE_PROCGEN_ENGINE_DIR "${_pg_root}")
