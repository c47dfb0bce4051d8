"""HiveParallelEnv: one env of a multi-agent pool as a ``pettingzoo.ParallelEnv``.

``env.agents`` shrinks as agents leave; ``step`` takes an action for every agent in ``env.agents``
(and no other) and returns dicts keyed by the agents that took part in the step; once
``env.agents`` is empty the game is over and only ``reset`` continues it. Observations are copies
(a PettingZoo user may keep them). Infos: an agent's own infos (a PettingZoo env's, on the process
backend) and the task's info fields (a native task's, besides the per-agent ones).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import ParallelEnv

from envhive.errors import ResetNeeded
from envhive.multiagent.batched import MultiAgentVectorEnv

# Keys of a batched agent info that are the pool's bookkeeping, not the env's infos.
BOOKKEEPING = frozenset(("env_id", "elapsed_step", "live", "final_obs", "_final_obs"))


class HiveParallelEnv(ParallelEnv):
    """A PettingZoo ParallelEnv over a one-env MultiAgentVectorEnv (autoreset disabled)."""

    def __init__(self, venv: MultiAgentVectorEnv, name: str) -> None:
        if venv.num_envs != 1:
            raise ValueError(f"a ParallelEnv is one env; the pool has {venv.num_envs}")
        self.venv = venv
        self.possible_agents = list(venv.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = dict(venv.observation_spaces)
        self.action_spaces = dict(venv.action_spaces)
        self.render_mode = venv.render_mode
        self.metadata = {
            "name": name,
            "is_parallelizable": True,
            "render_modes": list(venv.metadata.get("render_modes", [])),
            **({"render_fps": venv.metadata["render_fps"]} if "render_fps" in venv.metadata else {}),
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        obs, infos = self.venv.reset(seed=seed, options=self._options(options))
        self.agents = [a for a in self.possible_agents if bool(infos[a]["live"][0])]
        return {a: _first(obs[a]) for a in self.agents}, {a: self._info(infos[a]) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], Any, Any, Any, Any]:
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict {{agent: action}}, got {type(actions).__name__}")
        if not self.agents:
            raise ResetNeeded(
                "step() with no agent in play: every agent is done (or the env was never reset); call reset() first"
            )
        unknown = sorted(str(a) for a in actions if a not in self.action_spaces)
        if unknown:
            raise ValueError(f"actions for unknown agent(s) {unknown}; this env's agents are {self.possible_agents}")
        done = sorted(str(a) for a in actions if a not in self.agents)
        if done:
            raise ValueError(f"actions for agent(s) {done} that are done (not in env.agents: {self.agents})")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions lack agent(s) {missing}: every agent in env.agents needs an action")
        batched = {a: self._batched(a, v) for a, v in actions.items()}
        obs, rewards, terms, truncs, infos = self.venv.step(batched)
        took_part = [a for a in self.possible_agents if bool(infos[a]["live"][0])]
        out_obs = {a: _first(obs[a]) for a in took_part}
        out_rew = {a: float(rewards[a][0]) for a in took_part}
        out_term = {a: bool(terms[a][0]) for a in took_part}
        out_trunc = {a: bool(truncs[a][0]) for a in took_part}
        self.agents = [a for a in took_part if not (out_term[a] or out_trunc[a])]
        return out_obs, out_rew, out_term, out_trunc, {a: self._info(infos[a]) for a in took_part}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def render(self) -> Any:
        frames = self.venv.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self.venv.close()

    def _batched(self, agent: str, action: Any) -> np.ndarray:
        """One agent's action as a batch of one, checked against its space (naming the agent)."""
        space = self.action_spaces[agent]
        value = np.asarray(action)
        if isinstance(space, spaces.Discrete):
            if value.shape not in ((), (1,)) or value.dtype.kind not in "iub":
                raise ValueError(f"the action of agent {agent!r} must be an integer of {space}, got {action!r}")
            return value.reshape(1)
        if value.shape != space.shape:
            raise ValueError(
                f"the action of agent {agent!r} must have shape {space.shape} ({space}), got {value.shape}"
            )
        return value[None]

    def _options(self, options: dict[str, Any] | None) -> dict[str, Any] | None:
        """The options the pool takes: a native task's declared reset options (PettingZoo envs ignore
        options they do not know, and so does this one); any options for a PettingZoo env's own reset."""
        if not options:
            return None
        known = self.venv.reset_options
        if known is None:
            return dict(options)
        kept = {k: v for k, v in options.items() if k in known}
        return kept or None

    @staticmethod
    def _info(batched: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in batched.items():
            if key in BOOKKEEPING or key.startswith("_"):
                continue
            if isinstance(value, dict):
                out[key] = HiveParallelEnv._info(value)
            elif isinstance(value, np.ndarray) and value.ndim >= 1:
                item = value[0]
                out[key] = item.item() if isinstance(item, np.generic) else item
            else:
                out[key] = value
        return out


def _first(batched: Any) -> Any:
    """The first env's value of a batched observation (a copy), nested as its space."""
    if isinstance(batched, dict):
        return {key: _first(value) for key, value in batched.items()}
    if isinstance(batched, tuple):
        return tuple(_first(value) for value in batched)
    return np.array(batched[0])
