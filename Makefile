# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The trainers' extras (envhive.adapters.<trainer>; Tianshou and skrl need no adapter), tested against the real libraries.
ADAPTERS := sb3,rl-games,torchrl,acme,tianshou,skrl
# dm-acme 0.4.0 requires dm-launchpad (no wheel for Python >= 3.11): installed without its
# dependencies, which the [acme] extra provides (docs/integrations.md).
ACME := "dm-acme==0.4.0"
# dm-control 1.0.52 declares mujoco >= 4.0.1; it runs on envhive's mujoco 4.0.0 and is installed without its
# dependencies, which the [dmc] extra provides (src/envhive/families/dmc.py).
DM_CONTROL := "dm-control==1.0.52"
# craftax 1.6.1 (the Craftax family's reference) declares pygame, which would overwrite pygame-ce's
# `pygame` package: installed without its dependencies, which the [craftax-reference] extra provides.
CRAFTAX := "craftax==1.6.1"
# metaworld 3.1.1 pins mujoco 3.3.0; it runs on envhive's mujoco 4.0.0 (its tests shim one line) and is installed
# without its dependencies, like dm-control (the envhive[metaworld] extra has the others).
METAWORLD := "metaworld==3.1.1"
# ray[rllib] 2.60 pins gymnasium==1.2.2, the lower end of envhive's Gymnasium range: RLlib and the
# suite at that end run in a second venv, with envhive installed as a wheel built from build/.
VENV_RLLIB := .venv-rllib
WHEELHOUSE := build/wheelhouse
SOURCES := $(shell find csrc src cmake -type f \( -name '*.h' -o -name '*.cc' -o -name '*.py' -o -name '*.cmake' -o -name '*.in' \)) CMakeLists.txt pyproject.toml

NATIVE_TESTS := build/native-tests
# PufferLib 3's own interpreter (numpy < 2, Gymnasium 0.29) for benchmarks/process_compare.py.
VENV_PUFFER := .venv-puffer
PUFFERLIB := "pufferlib-core==3.0.23"

# The build's own requirements (pyproject.toml [build-system]), installed into the venv so rebuilds
# reuse one CMake build dir (build/).
# The demo builds envhive._native alone (its CartPole job needs no other family), in a build dir of
# its own so the full build's CMake cache never inherits the demo's family list.
DEMO_BUILD_REQS := "scikit-build-core>=0.10,<2" "nanobind>=2.9,<3" "numpy>=2.0,<3" "cmake>=3.26" ninja "gymnasium>=1.2.2,<1.5"
BUILD_REQS := $(DEMO_BUILD_REQS) "mujoco-core==4.0.0" "ale-py==0.12.1" "jaxlib>=0.10,<0.11"
DEMO_FAMILIES := classic_control;toy_text;testing;python
# CPU dispatch paths of another machine, forced on this one: numpy's SIMD kernels and OpenBLAS's
# (AVX2: an AVX-512 machine taking an AVX2 machine's kernels; baseline: x86-64-v2, no AVX).
DISPATCH_AVX2 := NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" OPENBLAS_CORETYPE=Haswell
DISPATCH_BASELINE := NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SPR" OPENBLAS_CORETYPE=Nehalem
# The lock-step tests against each family's reference (what CPU dispatch could change).
LOCKSTEP_TESTS := tests/test_numpy_kernels.py $(wildcard tests/families/*/test_*_alignment.py)

.PHONY: gl-deps demo test test-deep install install-rllib lint typecheck native-test sanitize fuzz bench bench-puffer clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

FULL_BUILD := --no-build-isolation -Ccmake.define.ENVHIVE_FAMILIES=all

# The package alone, with its own dependencies (numpy, Gymnasium), and only the family module the
# demo runs: what `make demo` needs on a fresh clone. Once `make test` has installed every family,
# a rebuild keeps them all (a demo never takes families away from the test venv).
$(VENV)/.built: $(VENV)/bin/python $(SOURCES)
	if [ -f $(VENV)/.installed ]; then \
	  $(PIP) install --quiet $(BUILD_REQS) && $(PIP) install --quiet $(FULL_BUILD) -e .; \
	else \
	  $(PIP) install --quiet $(DEMO_BUILD_REQS) && \
	  $(PIP) install --quiet --no-build-isolation -Cbuild-dir=build/demo \
	    -Ccmake.define.ENVHIVE_FAMILIES="$(DEMO_FAMILIES)" -e .; \
	fi
	touch $@

# Every family, the test stack on top: every extra, the trainers, the references (`make test`).
$(VENV)/.installed: $(VENV)/.built
	$(PIP) install --quiet $(BUILD_REQS)
	$(PIP) install --quiet $(FULL_BUILD) -e ".[test,$(ADAPTERS)]"
	$(PIP) install --quiet --no-deps $(ACME) $(DM_CONTROL) $(CRAFTAX) $(METAWORLD)
	touch $@

$(VENV_RLLIB)/.installed: $(VENV)/.installed
	rm -rf $(WHEELHOUSE)
	$(PIP) wheel --quiet $(FULL_BUILD) --no-deps -w $(WHEELHOUSE) .
	[ -x $(VENV_RLLIB)/bin/python ] || $(PYTHON) -m venv $(VENV_RLLIB)
	$(VENV_RLLIB)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_RLLIB)/bin/python -m pip install --quiet --force-reinstall --no-deps $(WHEELHOUSE)/envhive-*.whl
	$(VENV_RLLIB)/bin/python -m pip install --quiet "$$(ls $(WHEELHOUSE)/envhive-*.whl)[test,rllib,$(ADAPTERS)]"
	$(VENV_RLLIB)/bin/python -m pip install --quiet --no-deps $(ACME) $(DM_CONTROL) $(CRAFTAX) $(METAWORLD)
	$(VENV_RLLIB)/bin/python -c "import gymnasium, ray; assert gymnasium.__version__ == '1.2.2', gymnasium.__version__"
	touch $@

install: $(VENV)/.installed gl-deps

# Headless GL for MuJoCo's render_mode="rgb_array": EGL with Mesa's software renderer (llvmpipe).
# envhive links no GL (the first MuJoCo frame dlopens libEGL, else libOSMesa), so it builds and
# imports without these; rendering then raises envhive.RenderError naming them. A no-op when present
# (or off Debian/Ubuntu, where it says what to install); pip install never runs it. Also glib, which
# the official Procgen engine (envhive._procgen, dlopen'ed) links.
GL_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri libglib2.0-0
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
gl-deps:
	@missing=$$(for p in $(GL_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get > /dev/null; then \
	    echo "envhive: installing headless GL for MuJoCo rendering and glib for Procgen: $$missing"; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "envhive: MuJoCo rendering needs EGL with Mesa, Procgen glib (Debian/Ubuntu packages: $$missing); install them with your package manager" >&2; \
	  fi; \
	fi

install-rllib: $(VENV_RLLIB)/.installed

# The package and numpy / Gymnasium only (no test stack), then the main job: CartPole on the pool
# against Gymnasium's own vector envs.
demo: $(VENV)/.built
	$(VENV)/bin/envhive bench CartPole-v1 --num-envs 64 --seconds 2 --compare gymnasium-sync,gymnasium-async

# pytest at both ends of envhive's Gymnasium range: the newest release (.venv: the whole suite but
# RLlib and the families' deep lock-step matrices, learning tests included) and 1.2.2 (.venv-rllib:
# RLlib, envhive.ray and the tests whose outcome depends on Gymnasium's version -- facades,
# wrappers, adapters, the process backend; tests/conftest.py's GYMNASIUM_API_MODULES -- not every
# family's lock-step tests again). `make test-deep` runs the rest.
test: install install-rllib lint typecheck native-test
	$(PY) -m pytest tests -m "not rllib and not deep" --durations=15
	$(VENV_RLLIB)/bin/python -m pytest tests -m "(rllib or gymnasium_api) and not learning and not sdk and not deep" --durations=10

# The families' deep lock-step matrices (seeds, autoreset modes, long episodes, frames, kwargs), and
# the lock-step tests on the CPU dispatch paths of other machines (AVX2, baseline): .ci/run runs it.
test-deep: install
	$(PY) -m pytest tests -m "deep and not rllib" --durations=15
	$(DISPATCH_AVX2) $(PY) -m pytest $(LOCKSTEP_TESTS) -m "not deep" -q
	$(DISPATCH_BASELINE) $(PY) -m pytest $(LOCKSTEP_TESTS) -m "not deep" -q

lint: install
	$(VENV)/bin/ruff check src tests benchmarks csrc examples templates
	$(VENV)/bin/ruff format --check src tests templates

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

# PufferLib 3 for benchmarks/process_compare.py's `pufferlib` rows (bench-only: nothing tests it).
$(VENV_PUFFER)/.installed: benchmarks/pufferlib-requirements.txt
	[ -x $(VENV_PUFFER)/bin/python ] || $(PYTHON) -m venv $(VENV_PUFFER)
	$(VENV_PUFFER)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_PUFFER)/bin/python -m pip install --quiet -r benchmarks/pufferlib-requirements.txt
	$(VENV_PUFFER)/bin/python -m pip install --quiet --no-deps $(PUFFERLIB)
	$(VENV_PUFFER)/bin/python -c "import numpy, gymnasium, pufferlib.vector; assert numpy.__version__ < '2'"
	touch $@

bench-puffer: $(VENV_PUFFER)/.installed

clean:
	rm -rf build $(VENV) $(VENV_RLLIB) $(VENV_PUFFER) .venv-asan .venv-tsan
