#!/usr/bin/env bash
# make sanitize: envhive built with AddressSanitizer + UndefinedBehaviorSanitizer, and separately
# with ThreadSanitizer, each in a venv of its own (.venv-asan, .venv-tsan), running the engine's
# C++ unit tests and the Python tests that exercise threads, errors, async scheduling, autoreset,
# determinism, array ownership and the process backend's C++ sync step (its parent and workers).
# Any sanitizer report fails the run.
#
#   bash tools/sanitize.sh [asan|tsan]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(asan tsan)

TESTS=(tests/test_threads.py tests/test_errors.py tests/test_async.py tests/test_autoreset.py
       tests/test_determinism.py tests/test_arrays.py tests/test_python_env_errors.py tests/test_fuzz.py
       tests/test_render.py tests/test_process_wire.py)

for kind in "${kinds[@]}"; do
  case "$kind" in
    asan)
      flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
      runtime=$(gcc -print-file-name=libasan.so)
      export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"  # CPython itself "leaks" at exit
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      ;;
    tsan)
      flags="-fsanitize=thread -fno-omit-frame-pointer"
      runtime=$(gcc -print-file-name=libtsan.so)
      export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0:suppressions=$PWD/tools/tsan.supp"
      ;;
    *) echo "unknown sanitizer '$kind' (asan or tsan)" >&2; exit 2 ;;
  esac
  # The C++ runtime is preloaded too: Python is C, so libstdc++ would otherwise load after the
  # sanitizer, which then cannot intercept __cxa_throw.
  runtime="$runtime:$(gcc -print-file-name=libstdc++.so)"
  venv=".venv-$kind"
  echo "== $kind: building envhive with $flags into $venv"
  [ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet "scikit-build-core>=0.10,<2" "nanobind>=2.9,<3" "numpy>=2.0,<3" \
    "cmake>=3.26" ninja "mujoco-core==4.0.0" "ale-py==0.12.1" "gymnasium>=1.1,<1.5"
  # Only the families the tests below make (classic control, toy text, the test tasks, Python envs,
  # MuJoCo and Atari for test_render): every other family's C++ is left out of the instrumented builds.
  "$venv/bin/python" -m pip install --quiet --no-build-isolation -e ".[all,sanitize]" \
    -C build-dir="build/$kind" -C cmake.build-type=RelWithDebInfo \
    -C cmake.define.ENVHIVE_FAMILIES="classic_control;toy_text;testing;python;mujoco;atari" \
    -C cmake.define.CMAKE_CXX_FLAGS="$flags" -C cmake.define.CMAKE_SHARED_LINKER_FLAGS="$flags" \
    -C cmake.define.ENVHIVE_MODULE_RUN_ENV="LD_PRELOAD=$runtime"

  echo "== $kind: C++ unit tests"
  PATH="$PWD/$venv/bin:$PATH" cmake -S . -B "build/$kind-native" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DENVHIVE_BUILD_MODULES=OFF -DENVHIVE_BUILD_TESTS=ON -DCMAKE_CXX_FLAGS="$flags" > /dev/null
  PATH="$PWD/$venv/bin:$PATH" cmake --build "build/$kind-native"
  "build/$kind-native/tests/native/envhive_core_tests"

  echo "== $kind: Python tests (${TESTS[*]})"
  # -s: a sanitizer report goes to the terminal (a captured one is lost when the process aborts).
  LD_PRELOAD="$runtime" ENVHIVE_SANITIZER="$kind" "$venv/bin/python" -m pytest -q -s -p no:cacheprovider "${TESTS[@]}"
done
echo "sanitizers: clean"
