# Box2D (zlib licence) as a static library for the _box2d module only.
#
# Gymnasium's Box2D environments run on pybox2d (the PyPI distribution `box2d`; Gymnasium 1.4's
# `box2d` extra pins box2d==2.3.10). That release ships wheels only; its C++ tree -- Box2D 2.3 as
# pybox2d carries it -- is byte for byte the one in the pybox2d `box2d==2.3.2` source distribution
# (checked file by file against the 2.3.10 tag of github.com/pybox2d/pybox2d: Collision/, Common/
# and Dynamics/ are identical; only the SWIG wrapper's Box2D_world.i differs). So the source is that
# sdist, fetched at configure time with pip itself, checked against a pinned hash and unpacked once
# into a cache folder; later configures find it there and neither refetch nor unpack it.
#
# Floating point: the 2.3.10 wheel's _Box2D was built by GCC 10.2 for baseline x86-64 (SSE2, no
# FMA: its disassembly has no vfmadd) without -ffast-math, so every float operation is an IEEE
# single-precision one in source order; sin/cos/atan2/sqrt come from the same glibc at run time.
# Compiling the same sources with -ffp-contract=off (no FMA contraction on any target) and no
# fast-math gives the same results; tests/families/box2d/test_box2d_alignment.py checks them bit for bit against
# the wheel.
#
# pybox2d's b2Settings.h routes b2Assert to Python (it includes <Python.h> and calls
# PyErr_SetString before throwing b2AssertException). The sources are compiled unchanged against a
# stand-in <Python.h> (box2d/b2assert/Python.h) that keeps the failed condition's text instead, so
# an assertion inside Box2D still throws, and the env reports it as an envhive.EnvError.
#
# Defines the target `envhive_box2d_engine` (a static library; Box2D's headers as SYSTEM includes).

set(ENVHIVE_BOX2D_SDIST_NAME "box2d")
set(ENVHIVE_BOX2D_SDIST_VERSION "2.3.2")
set(ENVHIVE_BOX2D_SDIST_SHA256 "d1557dffdf9c1d6c796ec5df53e3d93227bb026c14b8411d22c295edaa2fb225")

set(ENVHIVE_BOX2D_CACHE_DIR "$ENV{ENVHIVE_BOX2D_CACHE_DIR}" CACHE PATH
    "Where the Box2D source is fetched and unpacked once (default: <source>/build/box2d-cache; env ENVHIVE_BOX2D_CACHE_DIR)")
if(NOT ENVHIVE_BOX2D_CACHE_DIR)
  set(ENVHIVE_BOX2D_CACHE_DIR "${CMAKE_SOURCE_DIR}/build/box2d-cache")
endif()

set(_b2_root "${ENVHIVE_BOX2D_CACHE_DIR}/box2d-${ENVHIVE_BOX2D_SDIST_VERSION}-${ENVHIVE_BOX2D_SDIST_SHA256}")
set(_b2_src "${_b2_root}/src/Box2D-${ENVHIVE_BOX2D_SDIST_VERSION}")
set(_b2_stamp "${_b2_root}/complete.stamp")
set(_b2_help "To build envhive without the Box2D family, configure with -DENVHIVE_BUILD_BOX2D=OFF \
(pip install . -Ccmake.define.ENVHIVE_BUILD_BOX2D=OFF).")

if(NOT EXISTS "${_b2_stamp}")
  file(MAKE_DIRECTORY "${_b2_root}")
  # Two builds sharing the cache (parallel pip runs) must not unpack into the same folder at once.
  file(LOCK "${_b2_root}/.lock" GUARD FILE TIMEOUT 600 RESULT_VARIABLE _lock_rc)
  if(NOT _lock_rc EQUAL 0)
    message(FATAL_ERROR "envhive: could not lock ${_b2_root}/.lock: ${_lock_rc}")
  endif()
  if(NOT EXISTS "${_b2_stamp}")
    set(_dl "${_b2_root}/download")
    file(MAKE_DIRECTORY "${_dl}")
    file(WRITE "${_dl}/requirements.txt"
         "${ENVHIVE_BOX2D_SDIST_NAME}==${ENVHIVE_BOX2D_SDIST_VERSION} --hash=sha256:${ENVHIVE_BOX2D_SDIST_SHA256}\n")
    message(STATUS "envhive: fetching the Box2D source (the box2d ${ENVHIVE_BOX2D_SDIST_VERSION} sdist) with pip")
    # pip reads the sdist's metadata by running its setup.py in an isolated environment (setuptools
    # and wheel only; nothing is compiled).
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --no-binary :all: --require-hashes
              --disable-pip-version-check --no-input -r "${_dl}/requirements.txt" -d "${_dl}"
      RESULT_VARIABLE _rc OUTPUT_FILE "${_dl}/pip.log" ERROR_FILE "${_dl}/pip.log")
    file(GLOB _sdists "${_dl}/*.tar.gz")
    list(LENGTH _sdists _n_sdists)
    if(NOT _rc EQUAL 0 OR NOT _n_sdists EQUAL 1)
      file(READ "${_dl}/pip.log" _log)
      message(FATAL_ERROR "envhive: could not fetch the Box2D source: `python -m pip download \
${ENVHIVE_BOX2D_SDIST_NAME}==${ENVHIVE_BOX2D_SDIST_VERSION} --no-binary :all:` failed (exit ${_rc}). It needs \
PyPI (or your pip index) and pip in the build environment.\n${_log}\n${_b2_help}")
    endif()
    file(SHA256 "${_sdists}" _sha)
    if(NOT _sha STREQUAL ENVHIVE_BOX2D_SDIST_SHA256)
      message(FATAL_ERROR "envhive: ${_sdists} has sha256 ${_sha}, expected ${ENVHIVE_BOX2D_SDIST_SHA256}")
    endif()
    file(REMOVE_RECURSE "${_b2_root}/src")
    file(ARCHIVE_EXTRACT INPUT "${_sdists}" DESTINATION "${_b2_root}/src")
    if(NOT EXISTS "${_b2_src}/Box2D/Box2D.h")
      message(FATAL_ERROR "envhive: ${_sdists} did not unpack to ${_b2_src}")
    endif()
    file(REMOVE ${_sdists})
    file(WRITE "${_b2_stamp}" "box2d ${ENVHIVE_BOX2D_SDIST_VERSION} sdist (sha256 ${ENVHIVE_BOX2D_SDIST_SHA256})\n")
  endif()
  file(LOCK "${_b2_root}/.lock" RELEASE)
else()
  message(STATUS "envhive: using the cached Box2D source in ${_b2_src}")
endif()

# The C++ files pybox2d's setup.py compiles (its SWIG wrapper aside).
set(_b2_sources "")
foreach(_dir Dynamics Dynamics/Contacts Dynamics/Joints Common Collision Collision/Shapes)
  file(GLOB _files "${_b2_src}/Box2D/${_dir}/*.cpp")
  list(APPEND _b2_sources ${_files})
endforeach()
list(LENGTH _b2_sources _n_b2)
if(_n_b2 LESS 40)
  message(FATAL_ERROR "envhive: expected Box2D's ~45 C++ files under ${_b2_src}/Box2D, found ${_n_b2}")
endif()

add_library(envhive_box2d_engine STATIC ${_b2_sources})
set_target_properties(envhive_box2d_engine PROPERTIES CXX_STANDARD 20 POSITION_INDEPENDENT_CODE ON)
# Box2D's own code: no envhive warnings (-w), no FMA contraction, never fast-math.
target_compile_options(envhive_box2d_engine PRIVATE -w -ffp-contract=off)
target_include_directories(envhive_box2d_engine SYSTEM BEFORE PUBLIC
  "${CMAKE_CURRENT_LIST_DIR}/b2assert" "${_b2_src}")
