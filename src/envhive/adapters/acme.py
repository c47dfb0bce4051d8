"""Acme: ``acme.EnvironmentLoop`` on envhive, one env or a batch.

    import acme
    from envhive.adapters.acme import LockstepEpisodes, make_single_env

    loop = acme.EnvironmentLoop(make_single_env("CartPole-v1", seed=0), actor)   # one env
    loop.run(num_episodes=10)

    batch = LockstepEpisodes(envhive.make_dm("CartPole-v1", num_envs=8, seed=0))  # 8 envs
    acme.EnvironmentLoop(batch, batched_actor).run(num_episodes=2)               # 2 x 8 episodes

``make_single_env`` is :class:`envhive.dm.HiveSingleDmEnv`: an unbatched ``dm_env.Environment``,
what ``EnvironmentLoop`` and Acme's actors and adders expect.

``EnvironmentLoop`` runs one episode at a time and asks ``timestep.last()`` for a Python bool,
so it cannot drive a batched facade as is. :class:`LockstepEpisodes` makes each of its episodes
one episode of *every* env of a sync pool, run side by side: ``reset()`` restarts all of them,
``step(actions)`` takes one action per env (``(num_envs, ...)``), and an env whose episode is
over is held until the others finish (its row repeats the LAST step: terminal observation,
reward 0, its final discount; the pool restarts it meanwhile and that episode is discarded).
``timestep.first()/mid()/last()`` answer for the whole batch (``last()``: every env has ended),
so the loop's ``episode_return`` is an array of ``num_envs`` returns and ``episode_length`` the
longest episode. Its actor gets batched observations: a batched policy (one forward pass for all
envs), as used for evaluation.

Installing Acme: dm-acme 0.4.0 requires dm-launchpad, which has no wheel for Python >= 3.11, so
install it without its dependencies (``pip install "envhive[acme]"`` brings the others):

    pip install "envhive[acme]" && pip install --no-deps dm-acme==0.4.0

``EnvironmentLoop`` uses launchpad only for ``register_stop_handler`` / ``unregister_stop_handler``
(a distributed stop signal). When ``launchpad`` cannot be imported, importing this module puts a
stand-in with those two functions (doing nothing: there is no launchpad program to stop the
loop) in ``sys.modules["launchpad"]`` before it imports acme -- so import this module before
``acme`` itself. A real dm-launchpad, where installed, is used instead.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any

import dm_env
import numpy as np


def _launchpad_stand_in() -> types.ModuleType:
    """The two launchpad functions ``acme.utils.signals`` calls, as no-ops (see the module doc)."""
    module = types.ModuleType("launchpad", "envhive.adapters.acme's stand-in for dm-launchpad's stop handlers")

    def register_stop_handler(handler: Callable[[], Any]) -> None:
        """No launchpad program: nothing ever asks the loop to stop."""

    def unregister_stop_handler(handler: Callable[[], Any]) -> None:
        """Nothing was registered."""

    module.register_stop_handler = register_stop_handler  # type: ignore[attr-defined]
    module.unregister_stop_handler = unregister_stop_handler  # type: ignore[attr-defined]
    return module


if importlib.util.find_spec("launchpad") is None:
    sys.modules["launchpad"] = _launchpad_stand_in()

import acme  # noqa: E402, F401  (after the stand-in: acme.utils.signals imports launchpad)

from envhive.dm import HiveDmEnv, HiveSingleDmEnv  # noqa: E402

_FIRST, _LAST = int(dm_env.StepType.FIRST), int(dm_env.StepType.LAST)

__all__ = ["BatchTimeStep", "LockstepEpisodes", "make_single_env"]


def make_single_env(task_id: str, **kwargs: Any) -> HiveSingleDmEnv:
    """One env of ``task_id`` as an unbatched ``dm_env.Environment`` (kwargs as ``envhive.make_dm``)."""
    return HiveSingleDmEnv(task_id, **kwargs)


class BatchTimeStep(dm_env.TimeStep):
    """A batched ``TimeStep`` whose ``first()`` / ``mid()`` / ``last()`` answer for the whole batch."""

    __slots__ = ()

    def first(self) -> bool:
        return bool(np.all(self.step_type == _FIRST))

    def last(self) -> bool:
        return bool(np.all(self.step_type == _LAST))

    def mid(self) -> bool:
        return not self.first() and not self.last()


class LockstepEpisodes(dm_env.Environment):
    """A sync :class:`envhive.dm.HiveDmEnv` whose episodes are one episode of every env (see the module doc)."""

    def __init__(self, env: HiveDmEnv) -> None:
        if not isinstance(env, HiveDmEnv):
            raise TypeError(
                f"LockstepEpisodes wraps envhive's batched dm_env facade (envhive.make_dm(...)), got "
                f"{type(env).__name__}; for one env use envhive.adapters.acme.make_single_env"
            )
        if env.batch_size != env.num_envs:
            raise ValueError(
                f"LockstepEpisodes steps every env each call; an async pool (batch_size={env.batch_size} < "
                f"num_envs={env.num_envs}) cannot run episodes side by side: build it with batch_size=num_envs"
            )
        self.env = env
        self.num_envs = env.num_envs
        self._ended = np.ones(self.num_envs, dtype=bool)  # a fresh env: the first step() resets
        self._held: dm_env.TimeStep | None = None  # rows of ended envs, as they ended

    def reset(self) -> BatchTimeStep:
        ts = self.env.reset()
        self._ended[:] = False
        self._held = None
        return BatchTimeStep(*ts)

    def step(self, action: Any) -> BatchTimeStep:
        if self._held is None and self._ended.all():
            return self.reset()  # dm_env: the step after the (batch's) LAST starts a new episode
        ts = self.env.step(action)
        step_type = np.array(ts.step_type)
        reward = np.array(ts.reward)
        discount = np.array(ts.discount)
        observation = np.array(ts.observation)
        if self._held is not None:
            held = self._ended
            step_type[held] = _LAST
            reward[held] = 0.0
            discount[held] = self._held.discount[held]
            observation[held] = self._held.observation[held]
        self._ended |= step_type == _LAST
        out = BatchTimeStep(step_type, reward, discount, observation)
        self._held = None if self._ended.all() else out
        return out

    def observation_spec(self) -> Any:
        return _batched(self.env.observation_spec(), self.num_envs)

    def action_spec(self) -> Any:
        return _batched(self.env.action_spec(), self.num_envs)

    def reward_spec(self) -> Any:
        return dm_env.specs.Array((self.num_envs,), np.float64, name="reward")

    def discount_spec(self) -> Any:
        return dm_env.specs.BoundedArray((self.num_envs,), np.float32, 0.0, 1.0, name="discount")

    def close(self) -> None:
        self.env.close()


def _batched(spec: Any, n: int) -> dm_env.specs.Array:
    """A single-env spec with a leading batch dimension (DiscreteArray -> BoundedArray of ints)."""
    if isinstance(spec, dm_env.specs.DiscreteArray):
        return dm_env.specs.BoundedArray((n,), spec.dtype, 0, spec.num_values - 1, name=spec.name)
    if isinstance(spec, dm_env.specs.BoundedArray):
        low = np.broadcast_to(spec.minimum, (n, *spec.shape))
        high = np.broadcast_to(spec.maximum, (n, *spec.shape))
        return dm_env.specs.BoundedArray((n, *spec.shape), spec.dtype, low, high, name=spec.name)
    return dm_env.specs.Array((n, *spec.shape), spec.dtype, name=spec.name)
