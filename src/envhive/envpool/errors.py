"""The exceptions envhive.envpool raises where EnvPool asserts: each is also an ``AssertionError``."""

from __future__ import annotations

from envhive.errors import EnvPoolArgumentError, UnknownTaskError

__all__ = ["EnvPoolArgumentError", "EnvPoolUnknownTaskError"]


class EnvPoolUnknownTaskError(UnknownTaskError, AssertionError):
    """A task id envhive.envpool cannot make (EnvPool asserts it is registered: also an AssertionError)."""
