"""Exceptions envhive raises beyond the built-in ones (ValueError, TypeError, TimeoutError)."""

from __future__ import annotations

import gymnasium.error


class UnknownTaskError(ValueError):
    """A task id that no family registered; the message suggests close matches."""


class MissingExtraError(ImportError):
    """A task's family needs an optional dependency that is not installed; the message names the
    ``pip install`` command that adds it (e.g. ``pip install "envhive[mujoco]"``)."""


class IncompatibleModuleError(ImportError):
    """A family module envhive refuses to load: built for another envhive version or module
    protocol, with another nanobind major version or C++ runtime, or not importable by this Python.
    The message names both builds and the exact command that rebuilds it (for a plug-in: its
    distribution and source)."""


class TaskConflictError(ValueError):
    """A task id that more than one family module defines (two plug-ins, or a plug-in and a
    built-in family): envhive runs neither, and the message names each module's distribution."""


class EnvError(RuntimeError):
    """An environment raised inside a worker (a pool thread, process or Ray actor).

    ``env_id`` is the first env that failed in the batch, ``env_ids`` all of them, ``error`` what
    the first one raised (its exception's message; the whole message where nothing else is known).
    The batch is lost; the failed envs start a new episode on their next step, and ``reset()``
    always works.
    """

    def __init__(self, message: str, env_id: int, env_ids: list[int], error: str | None = None) -> None:
        super().__init__(message)
        self.env_id = env_id
        self.env_ids = list(env_ids)
        self.error = message if error is None else error

    def __reduce__(
        self,
    ) -> tuple[type[EnvError], tuple[str, int, list[int], str]]:  # survives pickling (processes, Ray)
        return type(self), (str(self), self.env_id, self.env_ids, self.error)


class RenderError(RuntimeError):
    """A frame could not be drawn by ``render()``: no headless GL platform (the message names the
    system packages to install), a camera the model does not have, ...

    ``env_id`` is the first env whose frame failed, ``env_ids`` all of them. Nothing else is
    affected: the envs keep their state and the pool stays usable. Making a pool whose observations
    are frames (a DeepMind Control task's ``from_pixels``) where no frame can be drawn raises it
    too, with ``env_id`` -1 and no ``env_ids``.
    """

    def __init__(self, message: str, env_id: int, env_ids: list[int]) -> None:
        super().__init__(message)
        self.env_id = env_id
        self.env_ids = list(env_ids)

    def __reduce__(self) -> tuple[type[RenderError], tuple[str, int, list[int]]]:
        return type(self), (str(self), self.env_id, self.env_ids)


class ResetNeeded(gymnasium.error.ResetNeeded):
    """An env was stepped before it was ever reset (call ``reset()`` first), as Gymnasium's envs
    refuse it; a ``gymnasium.error.ResetNeeded``."""


class PoolClosedError(ValueError):
    """A call on a closed pool, or a call that was waiting when another thread closed the pool."""


class PoolBusyError(RuntimeError):
    """A call from a second thread while another thread's call is inside the pool: a pool serves
    one thread at a time."""


class EnvPoolArgumentError(ValueError, AssertionError):
    """A bad kwarg value given through ``envhive.envpool``. EnvPool asserts on these, so this is both a
    ValueError and an AssertionError."""
