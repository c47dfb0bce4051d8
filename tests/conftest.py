"""Pytest configuration shared by the envhive suite."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Gymnasium's reference CartPole-v0 is deprecated upstream; comparing against it is the point.
    config.addinivalue_line("filterwarnings", "ignore:.*CartPole-v0 is out of date.*:DeprecationWarning")
