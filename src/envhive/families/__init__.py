"""The families of tasks built into envhive: one descriptor module each, ``envhive.families.<name>``
(its ``FAMILY``, a :class:`~envhive.families.base.Family`), beside its C++ in ``csrc/envs/<name>/``
and its tests in ``tests/families/<name>/``. The descriptors are found here, not listed: adding a
family adds its folder, its descriptor and its tests, and nothing else.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any

from envhive.families.base import EnvPoolNames, Family

__all__ = ["EnvPoolNames", "Family", "builtin", "by_task_family", "task_methods"]


@functools.cache
def builtin() -> tuple[Family, ...]:
    """Every built-in family's descriptor, by name."""
    found = []
    for entry in sorted(pkgutil.iter_modules(__path__), key=lambda e: e.name):
        if entry.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{entry.name}")
        family = getattr(module, "FAMILY", None)
        if not isinstance(family, Family) or family.name != entry.name:
            raise ImportError(f"{module.__name__} must define FAMILY = Family(name={entry.name!r}, ...)")
        found.append(family)
    return tuple(found)


@functools.cache
def by_task_family() -> dict[str, Family]:
    """The built-in descriptor of each ``family`` a task reports (``TaskInfo.family``)."""
    return {name: family for family in builtin() for name in family.families}


def task_methods(family: str, task_id: str, config: Mapping[str, Any]) -> Mapping[str, Callable[..., Any]]:
    """The methods a pool's task offers beyond Gymnasium's API, by name (its family descriptor's
    ``task_methods``: a GoalEnv's ``compute_reward``, ...); empty for most tasks. ``family`` is the
    task's ``TaskInfo.family``, ``config`` the pool's resolved task kwargs."""
    descriptor = by_task_family().get(family)
    if descriptor is None or descriptor.task_methods is None:
        return {}
    return descriptor.task_methods(task_id, config)
