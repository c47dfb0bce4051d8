"""The robotics tests' deep matrix (several seeds, long episodes) runs only when asked for with
``-m deep`` (make test-deep); the default run keeps one short lock-step per id."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "deep" in (config.getoption("markexpr") or ""):
        return
    deep = [item for item in items if item.get_closest_marker("deep") and HERE in Path(str(item.path)).parents]
    if deep:
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if item not in deep]
