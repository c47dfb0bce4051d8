"""Any PettingZoo env as the shape of a native multi-agent task, so the process backend runs it
unchanged (its workers, shared memory, fault handling and autoreset): :class:`ParallelAsGym` is one
``gymnasium.Env`` whose observation is a Dict of the agents' observations, whose action is the
agents' action row, whose reward is the team's, and whose info holds ``agent_reward``,
``agent_terminated``, ``agent_truncated``, ``agent_live`` (one element per agent, as the native
base reports them) and ``agent_info`` (the agents' own infos, where any is not empty). An AEC env
is run through ``pettingzoo.utils.conversions.aec_to_parallel``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.conversions import aec_to_parallel, aec_to_parallel_wrapper, turn_based_aec_to_parallel
from pettingzoo.utils.env import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from envhive.multiagent.layout import AgentLayout
from envhive.registry import AgentSpaces

AGENTS_METADATA = "envhive.agents"
_BUILT: set[tuple[int, int]] = set()  # (process, factory) pairs that built an env already
"""The metadata key under which a ParallelAsGym names its agents (name, observation, action space)."""


def as_parallel(env: Any) -> ParallelEnv:
    """A PettingZoo ParallelEnv: an AEC env converted with ``aec_to_parallel`` (where its metadata
    says it is parallelizable), else with ``turn_based_aec_to_parallel`` (board games)."""
    if isinstance(env, ParallelEnv):
        return env
    if isinstance(env, AECEnv):
        if env.metadata.get("is_parallelizable", False):
            return aec_to_parallel(env)
        return turn_based_aec_to_parallel(env)
    raise TypeError(f"expected a PettingZoo ParallelEnv or AECEnv, got {type(env).__name__}")


# PettingZoo's wrappers that only check calls (the order of reset and step; an action inside its
# space): in a pool the facade checks both before a worker sees them.
CHECK_WRAPPERS = (OrderEnforcingWrapper, AssertOutOfBoundsWrapper)


class AecCycle:
    """``aec_to_parallel_wrapper`` (how most PettingZoo envs, mpe2's included, make their
    ``parallel_env``), stepping the AEC env under its check wrappers directly and without the
    ``last()`` whose result that wrapper's ``step`` discards (``observe`` computes an observation;
    PettingZoo's contract is that it changes nothing). Same calls on the AEC env otherwise, in the same
    order: the same episodes (the lock-step tests check it against the reference's own
    ``parallel_env``). ``ParallelAsGym(env, checks=True)`` keeps the wrapper as built."""

    def __init__(self, wrapper: aec_to_parallel_wrapper) -> None:
        aec = wrapper.aec_env
        while isinstance(aec, CHECK_WRAPPERS):
            aec = aec.env
        self.aec = aec
        self.possible_agents = list(wrapper.possible_agents)
        self.observation_space = wrapper.observation_space
        self.action_space = wrapper.action_space
        self.metadata = wrapper.metadata
        self.render_mode = getattr(wrapper, "render_mode", None)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
        aec = self.aec
        aec.reset(seed=seed, options=options)
        self.agents = aec.agents[:]
        terminations, truncations = aec.terminations, aec.truncations
        observations = {a: aec.observe(a) for a in aec.agents if not (terminations[a] or truncations[a])}
        return observations, dict(**aec.infos)

    def step(self, actions: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        aec = self.aec
        rewards: dict[str, Any] = defaultdict(int)
        for agent in aec.agents:
            if agent != aec.agent_selection:
                raise AssertionError(
                    f"expected agent {agent} got agent {aec.agent_selection}: the parallel conversion expects agents "
                    "to step in a cycle, and to leave only at the end of one"
                )
            aec.step(actions[agent])
            step_rewards = aec.rewards
            for other in aec.agents:
                rewards[other] += step_rewards[other]
        terminations = dict(**aec.terminations)
        truncations = dict(**aec.truncations)
        infos = dict(**aec.infos)
        observations = {a: aec.observe(a) for a in aec.agents}
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)
        self.agents = aec.agents
        return observations, rewards, terminations, truncations, infos

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


class ParallelAsGym(gymnasium.Env[dict[str, Any], np.ndarray]):
    """One PettingZoo env as one env of a multi-agent pool (see the module's doc). ``checks=False``
    runs an ``aec_to_parallel_wrapper`` env through :class:`AecCycle`."""

    def __init__(self, env: Any, checks: bool = True) -> None:
        par = as_parallel(env)
        self.par = par if checks or type(par) is not aec_to_parallel_wrapper else AecCycle(par)
        self.names: list[str] = list(par.possible_agents)
        agents = tuple(AgentSpaces(a, par.observation_space(a), par.action_space(a)) for a in self.names)
        self.layout = AgentLayout.of(agents)
        self.observation_space = spaces.Dict({a.name: a.observation_space for a in agents})
        self.action_space = self.layout.row_space
        self.render_mode = getattr(par, "render_mode", None)
        self.metadata = {**dict(getattr(par, "metadata", {}) or {}), AGENTS_METADATA: agents}
        n = len(self.names)
        self._blank = {a.name: _blank(a.observation_space) for a in agents}
        self._index = {name: i for i, name in enumerate(self.names)}
        self._n = n

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, infos = self.par.reset(seed=seed, options=options)
        live = np.zeros(self._n, dtype=bool)
        for name in self.par.agents:
            live[self._index[name]] = True
        return self._obs(obs), self._info(np.zeros(self._n), live & False, live & False, live, infos)

    def step(self, action: np.ndarray) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        layout = self.layout
        acting = list(self.par.agents)
        index = self._index
        if layout.discrete:
            values = action.tolist()
            actions: dict[str, Any] = {name: values[index[name]] for name in acting}
        else:
            actions = {}
            for name in acting:
                i = index[name]
                lo, n = layout.offsets[i], layout.counts[i]
                actions[name] = action[lo : lo + n].reshape(layout.agents[i].action_space.shape)
        obs, rewards, terms, truncs, infos = self.par.step(actions)
        n = self._n
        reward, terminated, truncated, live = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
        for name in acting:
            i = self._index[name]
            live[i] = True
            reward[i] = float(rewards.get(name, 0.0))
            terminated[i] = bool(terms.get(name, False))
            truncated[i] = bool(truncs.get(name, False))
        team_truncated = bool(live.any() and truncated[live].all())
        team_terminated = not self.par.agents and not team_truncated
        info = self._info(reward, terminated, truncated, live, infos)
        return self._obs(obs), float(reward[live].sum()), team_terminated, team_truncated, info

    def render(self) -> Any:
        return self.par.render()

    def close(self) -> None:
        self.par.close()

    def _obs(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {name: obs[name] if name in obs else self._blank[name] for name in self.names}

    def _info(
        self,
        reward: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        live: np.ndarray,
        infos: dict[str, Any],
    ) -> dict[str, Any]:
        info: dict[str, Any] = {
            "agent_reward": reward,
            "agent_terminated": terminated,
            "agent_truncated": truncated,
            "agent_live": live,
        }
        own = {name: dict(v) for name, v in infos.items() if name in self._index and v}
        if own:
            info["agent_info"] = own
        return info


def _blank(space: spaces.Space[Any]) -> Any:
    """The observation of an agent not in play: zeros (a Discrete's start), leaf by leaf."""
    if isinstance(space, spaces.Box | spaces.MultiBinary):
        return np.zeros(space.shape, dtype=space.dtype)
    if isinstance(space, spaces.Discrete):
        return np.asarray(space.start, dtype=space.dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return np.asarray(space.start, dtype=space.dtype).copy()
    if isinstance(space, spaces.Dict):
        return {key: _blank(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(_blank(sub) for sub in space.spaces)
    raise TypeError(f"an agent observation space envhive cannot blank: {space}")


@dataclass(frozen=True)
class PettingZooFactory:
    """What each worker calls to build one env: ``ParallelAsGym(make(**kwargs))``. ``make`` is the
    user's callable returning a PettingZoo ParallelEnv or AECEnv (``mpe2.simple_spread_v3.parallel_env``)."""

    make: Callable[..., Any]
    name: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)
    checks: bool = False  # keep PettingZoo's check wrappers in every env, not only a worker's first

    def __call__(self, **kwargs: Any) -> ParallelAsGym:
        # The first env a process builds keeps PettingZoo's check wrappers (as the process backend's
        # GymnasiumFactory keeps Gymnasium's on a worker's first env); the others run without them.
        key = (os.getpid(), id(self))
        first = key not in _BUILT
        _BUILT.add(key)
        return ParallelAsGym(self.make(**{**self.kwargs, **kwargs}), checks=self.checks or first)

    def __str__(self) -> str:
        return self.name or getattr(self.make, "__qualname__", repr(self.make))

    def __repr__(self) -> str:  # what the process backend names the pool's env by
        return f"PettingZoo:{self}"
