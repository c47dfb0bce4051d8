"""Pytest configuration shared by the envhive suite."""

from __future__ import annotations

import importlib.util

import pytest

# RLlib (ray[rllib] 2.60) pins gymnasium 1.2.2, so it lives in a venv of its own: `make test` runs
# its tests there (.venv-rllib) and the rest of the suite in both venvs.
collect_ignore = [] if importlib.util.find_spec("ray") else ["test_adapters_rllib.py"]


def pytest_configure(config: pytest.Config) -> None:
    # Gymnasium's reference CartPole-v0 is deprecated upstream; comparing against it is the point.
    config.addinivalue_line("filterwarnings", "ignore:.*CartPole-v0 is out of date.*:DeprecationWarning")
