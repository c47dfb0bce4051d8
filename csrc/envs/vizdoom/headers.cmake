# ViZDoom's headers for the vizdoom family (family.cmake): the module drives the vizdoom wheel's C++
# client (DoomGame) from the pool's threads.
#
# Nothing of ViZDoom is built, vendored or committed. The client is the one compiled into the
# `vizdoom` wheel's Python extension (vizdoom==1.3.2, the runtime extra `envhive[vizdoom]`), which
# exports the C++ DoomGame API; the module is compiled against the headers of the same release (the
# types and layouts), the `include/` of its source distribution, fetched here with pip (pinned hash,
# cached like the ALE and Box2D sources), and reaches DoomGame's members through dlsym once the
# family's first env loaded the wheel's library (doom_client.cc): the module builds, imports and
# lists its tasks without vizdoom installed. Linux x86_64 (the Itanium C++ ABI of the wheel's build).

set(ENVHIVE_VIZDOOM_VERSION "1.3.2")
set(ENVHIVE_VIZDOOM_SDIST_SHA256 "10eef8c2a65111c774ed1311438d95949719d1ac41dc1f7010936dc544f70de2")

if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  message(STATUS "envhive: ViZDoom is not built: envhive drives the vizdoom wheel's client on Linux only")
  set(ENVHIVE_VIZDOOM_SUPPORTED OFF)
  return()
endif()
set(ENVHIVE_VIZDOOM_SUPPORTED ON)

set(ENVHIVE_VIZDOOM_CACHE_DIR "$ENV{ENVHIVE_VIZDOOM_CACHE_DIR}" CACHE PATH
    "Where ViZDoom's headers are unpacked once (default: <source>/build/vizdoom-cache; env ENVHIVE_VIZDOOM_CACHE_DIR)")
if(NOT ENVHIVE_VIZDOOM_CACHE_DIR)
  set(ENVHIVE_VIZDOOM_CACHE_DIR "${CMAKE_SOURCE_DIR}/build/vizdoom-cache")
endif()
string(SUBSTRING "${ENVHIVE_VIZDOOM_SDIST_SHA256}" 0 12 _vzd_key)
set(_vzd_root "${ENVHIVE_VIZDOOM_CACHE_DIR}/vizdoom-${ENVHIVE_VIZDOOM_VERSION}-${_vzd_key}")
set(_vzd_include "${_vzd_root}/include")
set(_vzd_stamp "${_vzd_root}/complete.stamp")
set(_vzd_help "To build envhive without ViZDoom, configure with -DENVHIVE_BUILD_VIZDOOM=OFF \
(pip install . -Ccmake.define.ENVHIVE_BUILD_VIZDOOM=OFF).")

if(NOT EXISTS "${_vzd_stamp}")
  file(MAKE_DIRECTORY "${_vzd_root}")
  file(LOCK "${_vzd_root}/.lock" GUARD FILE TIMEOUT 600 RESULT_VARIABLE _lock_rc)
  if(NOT _lock_rc EQUAL 0)
    message(FATAL_ERROR "envhive: could not lock ${_vzd_root}/.lock: ${_lock_rc}")
  endif()
  if(NOT EXISTS "${_vzd_stamp}")
    set(_dl "${_vzd_root}/download")
    file(REMOVE_RECURSE "${_dl}" "${_vzd_root}/src" "${_vzd_include}")
    file(MAKE_DIRECTORY "${_dl}")
    file(WRITE "${_dl}/requirements.txt" "vizdoom==${ENVHIVE_VIZDOOM_VERSION} --hash=sha256:${ENVHIVE_VIZDOOM_SDIST_SHA256}\n")
    message(STATUS "envhive: fetching ViZDoom ${ENVHIVE_VIZDOOM_VERSION}'s headers (its sdist) with pip")
    # --no-binary for vizdoom alone: pip reads the sdist's metadata in an isolated environment of
    # its build requirements' wheels (nothing of ViZDoom is compiled).
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --no-binary vizdoom --require-hashes
              --disable-pip-version-check --no-input -r "${_dl}/requirements.txt" -d "${_dl}"
      RESULT_VARIABLE _rc OUTPUT_FILE "${_dl}/pip.log" ERROR_FILE "${_dl}/pip.log")
    set(_sdist "${_dl}/vizdoom-${ENVHIVE_VIZDOOM_VERSION}.tar.gz")
    if(NOT _rc EQUAL 0 OR NOT EXISTS "${_sdist}")
      file(READ "${_dl}/pip.log" _log)
      message(FATAL_ERROR "envhive: could not fetch ViZDoom's source: `python -m pip download vizdoom==${ENVHIVE_VIZDOOM_VERSION} \
--no-binary vizdoom --no-deps` failed (exit ${_rc}). It needs PyPI (or your pip index) and pip.\n${_log}\n${_vzd_help}")
    endif()
    file(SHA256 "${_sdist}" _sha)
    if(NOT _sha STREQUAL ENVHIVE_VIZDOOM_SDIST_SHA256)
      message(FATAL_ERROR "envhive: ${_sdist} has sha256 ${_sha}, expected ${ENVHIVE_VIZDOOM_SDIST_SHA256}")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${_sdist}" DESTINATION "${_vzd_root}/src" PATTERNS "vizdoom-${ENVHIVE_VIZDOOM_VERSION}/include/*")
    if(NOT EXISTS "${_vzd_root}/src/vizdoom-${ENVHIVE_VIZDOOM_VERSION}/include/ViZDoomGame.h")
      message(FATAL_ERROR "envhive: ${_sdist} holds no include/ViZDoomGame.h")
    endif()
    file(RENAME "${_vzd_root}/src/vizdoom-${ENVHIVE_VIZDOOM_VERSION}/include" "${_vzd_include}")
    file(REMOVE_RECURSE "${_vzd_root}/src" "${_dl}")
    file(WRITE "${_vzd_stamp}" "vizdoom ${ENVHIVE_VIZDOOM_VERSION} sdist sha256 ${ENVHIVE_VIZDOOM_SDIST_SHA256}: include/\n")
  endif()
  file(LOCK "${_vzd_root}/.lock" RELEASE)
else()
  message(STATUS "envhive: using the cached ViZDoom ${ENVHIVE_VIZDOOM_VERSION} headers in ${_vzd_include}")
endif()

set(ENVHIVE_VIZDOOM_INCLUDE_DIR "${_vzd_include}")
