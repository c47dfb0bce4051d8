"""Pytest configuration shared by the envhive suite."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

# Gymnasium's MuJoCo renderer and dm_control pick their GL platform from MUJOCO_GL (dm_control when
# it is imported; quadruped escape makes a rendering context in every reset); unset means GLFW,
# which needs a display. The headless one envhive uses by default: EGL.
if os.environ.get("MUJOCO_GL") not in ("egl", "osmesa"):
    os.environ["MUJOCO_GL"] = "egl"

# RLlib (ray[rllib] 2.60) pins gymnasium 1.2.2, so it lives in a venv of its own: `make test` runs
# its tests and envhive.ray's there (.venv-rllib) and the rest of the suite in both venvs.
# Every test module of envhive.ray is test_ray_*.py (they import ray at the top).
RAY_TESTS = ["test_adapters_rllib.py", *sorted(p.name for p in Path(__file__).parent.glob("test_ray_*.py"))]
collect_ignore = [] if importlib.util.find_spec("ray") else RAY_TESTS

# The modules whose outcome depends on Gymnasium's version (its vector API and autoreset modes,
# wrappers, spaces, registration and env checker, the trainers and the process backend built on
# them): `make test` runs them at both ends of envhive's Gymnasium range. The families' lock-step
# tests compare envhive with reference implementations, not with Gymnasium's API, and run once.
GYMNASIUM_API_MODULES = {
    "test_adapters_acme.py",
    "test_adapters_rl_games.py",
    "test_adapters_sb3.py",
    "test_adapters_skrl.py",
    "test_adapters_tianshou.py",
    "test_adapters_torchrl.py",
    "test_autoreset.py",
    "test_backends.py",
    "test_catalog.py",
    "test_envpool_compat.py",
    "test_episodes.py",
    "test_gym_integration.py",
    "test_process_adapters.py",
    "test_process_api.py",
    "test_process_lockstep.py",
    "test_single.py",
    "test_structured_obs.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in GYMNASIUM_API_MODULES:
            item.add_marker(pytest.mark.gymnasium_api)


def pytest_configure(config: pytest.Config) -> None:
    # Gymnasium's reference CartPole-v0 is deprecated upstream; comparing against it is the point.
    config.addinivalue_line("filterwarnings", "ignore:.*CartPole-v0 is out of date.*:DeprecationWarning")


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray of 2 CPUs for one test module (no dashboard: each module costs 140-160 MB). Its
    workers get tests/ on their path, so they unpickle the policies and EnvShard subclasses the
    tests define by reference."""
    import ray  # Ray is installed only in .venv-rllib, where the modules using this run

    tests = str(Path(__file__).resolve().parent)
    path = os.pathsep.join(p for p in (tests, os.environ.get("PYTHONPATH", "")) if p)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def fresh_compile_cache(tmp_path_factory):
    """A fresh cache dir for compiled Python-written envs, for one test module (subprocesses
    inherit it): each module compiles its envs from scratch. Modules use it with
    ``pytestmark = pytest.mark.usefixtures("fresh_compile_cache")``."""
    path = tmp_path_factory.mktemp("envhive-cache")
    old = os.environ.get("ENVHIVE_CACHE_DIR")
    os.environ["ENVHIVE_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("ENVHIVE_CACHE_DIR", None)
    else:
        os.environ["ENVHIVE_CACHE_DIR"] = old


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler (KeyboardInterrupt) for the test. A runner started in the
    background by a non-interactive shell (``nohup make test &``) inherits SIGINT ignored, and
    Python then installs no handler: a test sending itself SIGINT would wait forever."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
