"""What envhive's own tests use, public for backends and plug-in families.

- :func:`assert_matches_reference` (``envhive.testing.reference``): one lock-step harness against a
  task's reference implementation, with :class:`Tolerance` for a stated bound where bits may differ.
- :class:`PoolContract` (``envhive.testing.contract``, needs pytest): the call contract every pool
  keeps, as a pytest class to subclass with how to make a pool of your task -- the state rules of each
  call, the three autoreset modes, final observations, seeding, errors. Imported on first use, so the
  lock-step harness works without pytest.
"""

from __future__ import annotations

from typing import Any

from envhive.testing.reference import LockstepStats, Tolerance, assert_matches_reference, random_actions

__all__ = ["Failure", "LockstepStats", "PoolContract", "Tolerance", "assert_matches_reference", "random_actions"]


def __getattr__(name: str) -> Any:
    if name in ("Failure", "PoolContract"):
        from envhive.testing import contract

        return getattr(contract, name)
    raise AttributeError(f"module 'envhive.testing' has no attribute {name!r}")
