"""The exceptions envhive.envpool raises where EnvPool asserts: each is also an ``AssertionError``."""

from __future__ import annotations

from envhive.errors import UnknownTaskError


class EnvPoolArgumentError(ValueError, AssertionError):
    """A bad kwarg value. EnvPool asserts on these, so this is both a ValueError and an AssertionError."""


class EnvPoolUnknownTaskError(UnknownTaskError, AssertionError):
    """A task id envhive.envpool cannot make (EnvPool asserts it is registered: also an AssertionError)."""
