"""What a worker calls to build each of its envs, and the checks that a start method can ship it."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from envhive.errors import MissingExtraError


@dataclass(frozen=True)
class GymnasiumFactory:
    """``gymnasium.make(spec, **kwargs)`` for a registered env's ``EnvSpec``.

    ``build(checked=False)`` leaves out two wrappers that only pass calls through once an env
    runs in a pool: ``OrderEnforcing`` (the pool itself refuses a step before a reset, with
    ``envhive.ResetNeeded``) and ``PassiveEnvChecker`` (its checks run on the first reset and step
    only). Each is a Python call per step -- about a tenth of a Python CartPole step. A worker
    builds its first env checked, so the checker still looks at every pool's env type."""

    spec: gymnasium.envs.registration.EnvSpec
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __call__(self) -> gymnasium.Env[Any, Any]:
        return self.build(checked=True)

    def build(self, checked: bool) -> gymnasium.Env[Any, Any]:
        if checked:
            return gymnasium.make(self.spec, **self.kwargs)
        lean = dataclasses.replace(self.spec, order_enforce=False)
        return gymnasium.make(lean, disable_env_checker=True, **self.kwargs)

    def __str__(self) -> str:
        return self.spec.id


@dataclass(frozen=True)
class CallableFactory:
    """A user's env factory, called with the task kwargs; a time limit is added when asked for."""

    make: Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    max_episode_steps: int | None = None

    def build(self, checked: bool) -> gymnasium.Env[Any, Any]:
        """The user's env, as the factory makes it (``checked`` changes nothing here)."""
        return self()

    def __call__(self) -> gymnasium.Env[Any, Any]:
        env = self.make(**self.kwargs)
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f"the env factory {self.make!r} returned {type(env).__name__}, not a gymnasium.Env")
        if self.max_episode_steps:
            env = gymnasium.wrappers.TimeLimit(env, self.max_episode_steps)
        return env

    def __str__(self) -> str:
        return getattr(self.make, "__qualname__", repr(self.make))


Factory = GymnasiumFactory | CallableFactory


class Shipped:
    """A factory as a worker receives it. Under ``fork`` the worker inherits the object itself;
    otherwise it is pickled up front -- plain pickle when it can, cloudpickle (lambdas, local or
    ``__main__`` functions) otherwise -- so that an unpicklable factory fails in ``make``, with a
    message that says what to do, not in a worker."""

    def __init__(self, factory: Factory, start_method: str) -> None:
        self.name = str(factory)
        self.inherited: Factory | None = None
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

    def load(self) -> Factory:
        if self.inherited is not None:
            return self.inherited
        factory: Factory = pickle.loads(self.data)  # cloudpickle output loads with pickle
        return factory
