"""The Craftax family's tests: its deep matrix runs only when asked for (``-m deep``)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "deep" in (config.getoption("-m") or ""):
        return
    deselected = [i for i in items if i.get_closest_marker("deep") and Path(str(i.path)).parent == HERE]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [i for i in items if i not in deselected]
