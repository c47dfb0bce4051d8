"""Meta-World's deep lock-step matrix (@pytest.mark.deep) runs only when asked for: `pytest -m deep`."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "deep" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="Meta-World's deep matrix: run with -m deep")
    for item in items:
        if "deep" in item.keywords and item.path.is_relative_to(__file__.rsplit("/", 1)[0]):
            item.add_marker(skip)
