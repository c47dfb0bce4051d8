# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
SOURCES := $(shell find csrc src -type f \( -name '*.h' -o -name '*.cc' -o -name '*.py' \)) CMakeLists.txt pyproject.toml

.PHONY: demo test install lint bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Build requirements go into the venv so rebuilds reuse one CMake build dir (build/).
$(VENV)/.installed: $(VENV)/bin/python $(SOURCES)
	$(PIP) install --quiet "scikit-build-core>=0.10,<2" "nanobind>=2.9,<3" "numpy>=2.0,<3" "cmake>=3.26" ninja "mujoco-core==4.0.0" "ale-py==0.12.1"
	$(PIP) install --quiet --no-build-isolation -e ".[test]"
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/envhive bench CartPole-v1 --num-envs 64 --seconds 2 --compare gymnasium-sync,gymnasium-async

test: install
	$(VENV)/bin/ruff check src tests benchmarks csrc
	$(PY) -m pytest tests

bench: install
	$(PIP) install --quiet "envpool==1.2.5" "matplotlib>=3.8,<4"  # the [bench] extra, without reinstalling envhive
	$(PY) benchmarks/compare_classic.py

clean:
	rm -rf build $(VENV)
