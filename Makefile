# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
SOURCES := $(shell find csrc src cmake -type f \( -name '*.h' -o -name '*.cc' -o -name '*.py' -o -name '*.cmake' \)) CMakeLists.txt pyproject.toml

NATIVE_TESTS := build/native-tests

.PHONY: demo test install lint typecheck native-test sanitize fuzz bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Build requirements go into the venv so rebuilds reuse one CMake build dir (build/).
$(VENV)/.installed: $(VENV)/bin/python $(SOURCES)
	$(PIP) install --quiet "scikit-build-core>=0.10,<2" "nanobind>=2.9,<3" "numpy>=2.0,<3" "cmake>=3.26" ninja "mujoco-core==4.0.0" "ale-py==0.12.1" "gymnasium>=1.1,<1.5" "jaxlib>=0.10,<0.11"
	$(PIP) install --quiet --no-build-isolation -e ".[test]"
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/envhive bench CartPole-v1 --num-envs 64 --seconds 2 --compare gymnasium-sync,gymnasium-async

test: install lint typecheck native-test
	$(PY) -m pytest tests

lint: install
	$(VENV)/bin/ruff check src tests benchmarks csrc examples
	$(VENV)/bin/ruff format --check src tests

typecheck: install
	$(VENV)/bin/mypy

# The engine core's C++ unit tests (tests/native), built without Python.
native-test: install
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(NATIVE_TESTS) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DENVHIVE_BUILD_MODULES=OFF -DENVHIVE_BUILD_TESTS=ON > /dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(NATIVE_TESTS)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" ctest --test-dir $(NATIVE_TESTS) --output-on-failure

# ASan+UBSan and TSan builds, each in its own venv, running the C++ tests and the thread, error,
# async, autoreset, determinism, array and fuzz tests; any report fails.
sanitize:
	PYTHON=$(PYTHON) bash tools/sanitize.sh

# The property-based fuzzer at length (make test runs 60 sequences).
fuzz: install
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-3000} $(PY) -m pytest tests/test_fuzz.py -q

bench: install
	$(PIP) install --quiet "envpool==1.2.5" "matplotlib>=3.8,<4"  # the [bench] extra, without reinstalling envhive
	$(PY) benchmarks/compare_classic.py

clean:
	rm -rf build $(VENV) .venv-asan .venv-tsan
