"""Exceptions envhive raises beyond the built-in ones (ValueError, TypeError, TimeoutError)."""

from __future__ import annotations


class UnknownTaskError(ValueError):
    """A task id that no family registered; the message suggests close matches."""


class EnvError(RuntimeError):
    """An environment raised inside a worker thread.

    ``env_id`` is the first env that failed in the batch, ``env_ids`` all of them. The batch is
    lost; the failed envs start a new episode on their next step, and ``reset()`` always works.
    """

    def __init__(self, message: str, env_id: int, env_ids: list[int]) -> None:
        super().__init__(message)
        self.env_id = env_id
        self.env_ids = list(env_ids)
