"""Any PettingZoo env as the shape of a native multi-agent task, so the process backend runs it
unchanged (its workers, shared memory, fault handling and autoreset): :class:`ParallelAsGym` is one
``gymnasium.Env`` whose observation is a Dict of the agents' observations, whose action is the
agents' action row, whose reward is the team's, and whose info holds ``agent_reward``,
``agent_terminated``, ``agent_truncated``, ``agent_live`` (one element per agent, as the native
base reports them) and ``agent_info`` (the agents' own infos, where any is not empty). An AEC env
is run through ``pettingzoo.utils.conversions.aec_to_parallel``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel
from pettingzoo.utils.env import AECEnv, ParallelEnv

from envhive.multiagent.layout import AgentLayout
from envhive.registry import AgentSpaces

AGENTS_METADATA = "envhive.agents"
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


class ParallelAsGym(gymnasium.Env[dict[str, Any], np.ndarray]):
    """One PettingZoo env as one env of a multi-agent pool (see the module's doc)."""

    def __init__(self, env: Any) -> None:
        self.par = par = as_parallel(env)
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
        actions: dict[str, Any] = {}
        for name in acting:
            i = self._index[name]
            lo, n = layout.offsets[i], layout.counts[i]
            space = layout.agents[i].action_space
            actions[name] = int(action[lo]) if layout.discrete else action[lo : lo + n].reshape(space.shape)
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

    def __call__(self, **kwargs: Any) -> ParallelAsGym:
        return ParallelAsGym(self.make(**{**self.kwargs, **kwargs}))

    def __str__(self) -> str:
        return self.name or getattr(self.make, "__qualname__", repr(self.make))
