"""What a worker calls to build each of its envs, and the checks that a start method can ship it."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from envhive.errors import MissingExtraError


@dataclass(frozen=True)
class GymnasiumFactory:
    """``gymnasium.make(spec, **kwargs)`` for a registered env's ``EnvSpec``."""

    spec: gymnasium.envs.registration.EnvSpec
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __call__(self) -> gymnasium.Env[Any, Any]:
        return gymnasium.make(self.spec, **self.kwargs)

    def __str__(self) -> str:
        return self.spec.id


@dataclass(frozen=True)
class CallableFactory:
    """A user's env factory, called with the task kwargs; a time limit is added when asked for."""

    make: Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    max_episode_steps: int | None = None

    def __call__(self) -> gymnasium.Env[Any, Any]:
        env = self.make(**self.kwargs)
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f"the env factory {self.make!r} returned {type(env).__name__}, not a gymnasium.Env")
        if self.max_episode_steps:
            env = gymnasium.wrappers.TimeLimit(env, self.max_episode_steps)
        return env

    def __str__(self) -> str:
        return getattr(self.make, "__qualname__", repr(self.make))


class Shipped:
    """A factory as a worker receives it. Under ``fork`` the worker inherits the object itself;
    otherwise it is pickled up front -- plain pickle when it can, cloudpickle (lambdas, local or
    ``__main__`` functions) otherwise -- so that an unpicklable factory fails in ``make``, with a
    message that says what to do, not in a worker."""

    def __init__(self, factory: Callable[[], Any], start_method: str) -> None:
        self.name = str(factory)
        self.inherited: Callable[[], Any] | None = None
        self.data = b""
        self.cloud = False
        if start_method == "fork":
            self.inherited = factory
            return
        try:
            self.data = pickle.dumps(factory)
            self.cloud = False
        except Exception as plain_error:  # noqa: BLE001 - retried with cloudpickle, reported below
            hint = (
                f"the env factory {self.name!r} cannot be pickled, which start_method={start_method!r} needs "
                f"(each worker process receives it pickled): {plain_error}"
            )
            fix = "Use a module-level function or class (or functools.partial of one), or start_method='fork'"
            try:
                import cloudpickle  # the optional [process] extra: lambdas, local and __main__ functions
            except ImportError as missing:
                raise MissingExtraError(
                    f'{hint}. cloudpickle ships such factories: pip install "envhive[process]". {fix}'
                ) from missing
            try:
                self.data = cloudpickle.dumps(factory)
                self.cloud = True
            except Exception as error:  # noqa: BLE001 - turned into one clear message
                raise TypeError(f"{hint}; cloudpickle: {error}. {fix}") from error

    def load(self) -> Callable[[], Any]:
        if self.inherited is not None:
            return self.inherited
        factory: Callable[[], Any] = pickle.loads(self.data)  # cloudpickle output loads with pickle
        return factory
