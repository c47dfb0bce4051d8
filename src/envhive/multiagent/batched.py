"""MultiAgentVectorEnv: PettingZoo's parallel API batched over the envs of one pool.

Every call takes and returns dicts keyed by agent name, each value an array over the envs of the
call (``num_envs`` rows in sync mode; in async mode the ``batch_size`` envs ``recv`` returns, named
by ``infos[agent]["env_id"]``). Arrays cannot shrink, so every agent of ``possible_agents`` has a row
in every env: ``infos[agent]["live"]`` says whether it took part in that env's step (PettingZoo would
have returned it), and :attr:`MultiAgentVectorEnv.active` whether it is in play now (in
PettingZoo's ``env.agents``: it must be given an action next). Rows of agents not in play hold
filler (their actions are ignored, their rewards are 0 and their flags False).

The pool underneath is any multi-agent HiveVectorEnv: a native task (its declaration in
``csrc/core/multi_agent.h``) or PettingZoo envs in worker processes
(``envhive.multiagent.pettingzoo_env``). Autoreset is the pool's, in Gymnasium's three modes, per
env: an env resets when no agent is left in it. NEXT_STEP (default): the step after the end is a
reset step (observations of the new episode, rewards 0, every flag False; the actions are ignored);
SAME_STEP: the step that ends an episode returns the new episode's observations, with the last ones
in ``infos[agent]["final_obs"]`` (``"_final_obs"``: which rows); DISABLED: a step of an env whose
game is over raises ``envhive.ResetNeeded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envhive.errors import ResetNeeded
from envhive.multiagent.layout import AgentLayout
from envhive.registry import AgentSpaces
from envhive.vector import HiveVectorEnv

AGENT_INFOS = ("agent_reward", "agent_terminated", "agent_truncated", "agent_live")
POOL_KEYS = frozenset((*AGENT_INFOS, "agent_info", "final_obs", "_final_obs", "final_info", "_final_info"))

MultiStep = tuple[dict[str, Any], dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray], dict[str, Any]]
"""``(observations, rewards, terminations, truncations, infos)``, each keyed by agent."""


class MultiAgentVectorEnv:
    """The envs of a multi-agent pool (``pool``, a HiveVectorEnv of a task with agents) under
    PettingZoo's parallel API, batched (see the module's doc)."""

    def __init__(
        self, pool: HiveVectorEnv, agents: Sequence[AgentSpaces], reset_options: set[str] | None = None
    ) -> None:
        if not agents:
            raise ValueError(f"{pool.task_spec.id} is not a multi-agent task (it declares no agents)")
        self.pool = pool
        self.reset_options = reset_options
        """The reset options the envs take (a native task's); None: any (a PettingZoo env's own)."""
        self.layout = AgentLayout.of(agents)
        self.possible_agents: list[str] = self.layout.names
        self.observation_spaces = {a.name: a.observation_space for a in agents}
        self.action_spaces = {a.name: a.action_space for a in agents}
        self.num_envs = pool.num_envs
        self.batch_size = pool.batch_size
        self.autoreset_mode: AutoresetMode = pool.autoreset_mode
        self.metadata = pool.metadata
        self.render_mode = pool.render_mode
        n = len(agents)
        self._active = np.zeros((self.num_envs, n), dtype=bool)  # in env.agents: acts next
        self._over = np.ones(self.num_envs, dtype=bool)  # game over (or never reset): no agent acts next
        self._reset_next = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: the next step is a reset step
        self._never_reset = True

    # ------------------------------------------------------------------ the calls
    def reset(self, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset every env (``options["reset_mask"]``: those it selects) and return ``(obs, infos)``
        keyed by agent (in async mode: the next batch, as the pool's ``reset``). ``seed`` as the
        pool's: an int seeds env i with ``seed + i``."""
        obs, info = self.pool.reset(seed=seed, options=options)
        self._never_reset = False
        mask = None if not options or options.get("reset_mask") is None else np.asarray(options["reset_mask"], bool)
        return self._convert(obs, None, None, None, info, reset=True, reset_mask=mask)[0::4]

    def step(self, actions: dict[str, Any], env_id: Any = None) -> MultiStep:
        """Step with ``actions`` {agent: array over the envs}; return ``(obs, rewards, terminations,
        truncations, infos)``, each keyed by agent. Sync mode steps every env; async mode sends to
        ``env_id`` and returns the next batch (as :meth:`send` then :meth:`recv`)."""
        ids = self._ids(env_id)
        row = self._row(actions, ids)
        return self._convert(*self.pool.step(row, None if env_id is None else ids))

    def send(self, actions: dict[str, Any], env_id: Any = None) -> None:
        """Queue ``actions`` for ``env_id`` (default: every env) and return at once."""
        ids = self._ids(env_id)
        self.pool.send(self._row(actions, ids), None if env_id is None else ids)

    def recv(self, timeout: float | None = None) -> MultiStep:
        """The next ``batch_size`` envs to finish (``TimeoutError`` after ``timeout`` s)."""
        return self._convert(*self.pool.recv(timeout))

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Reset every env without waiting; ``recv()`` returns their first observations."""
        self.pool.async_reset(seed)
        self._never_reset = False

    def render(self) -> Any:
        return self.pool.render()

    def close(self) -> None:
        self.pool.close()

    @property
    def closed(self) -> bool:
        return self.pool.closed

    @property
    def active(self) -> np.ndarray:
        """``(num_envs, n_agents)`` bool: agent j is in play in env i (it takes an action next)."""
        return self._active.copy()

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def __repr__(self) -> str:
        return f"MultiAgentVectorEnv({self.pool!r}, agents={self.possible_agents})"

    # ------------------------------------------------------------------ helpers
    def _ids(self, env_id: Any) -> np.ndarray:
        if env_id is None:
            return np.arange(self.num_envs)
        ids = np.atleast_1d(np.asarray(env_id))
        if ids.dtype.kind not in "iu" or ids.ndim != 1 or ((ids < 0) | (ids >= self.num_envs)).any():
            raise ValueError(f"env_id must be env ids in [0, {self.num_envs}), got {env_id!r}")
        return ids.astype(np.int64)

    def _row(self, actions: Any, ids: np.ndarray) -> np.ndarray:
        if self._never_reset:
            raise ResetNeeded("step() before reset(): call reset() first")
        if self.autoreset_mode == AutoresetMode.DISABLED:
            over = ids[self._over[ids] & ~self._reset_next[ids]]
            if over.size:
                raise ResetNeeded(
                    f"env(s) {over.tolist()}: every agent is done (the game is over) and autoreset_mode is "
                    "'disabled': reset() them first"
                )
        return self.layout.build_row(actions, len(ids), self._active[ids])

    def _convert(
        self,
        obs: Any,
        reward: Any,
        terminated: Any,
        truncated: Any,
        info: dict[str, Any],
        reset: bool = False,
        reset_mask: np.ndarray | None = None,
    ) -> Any:
        ids = np.asarray(info["env_id"], dtype=np.int64)
        a_reward, a_term, a_trunc, live = (np.asarray(info[k]) for k in AGENT_INFOS)
        final = info.get("_final_info") if not reset else None
        now_live = live
        if final is not None and np.any(final):  # SAME_STEP: the ended rows' step results are the final infos
            fin = info["final_info"]
            a_reward, a_term, a_trunc, live = (
                np.where(np.asarray(final)[:, None], np.asarray(fin[k]), v)
                for k, v in zip(AGENT_INFOS, (a_reward, a_term, a_trunc, live), strict=True)
            )
        if truncated is not None:
            # the pool's time limit ends the game: every agent still in play is truncated
            a_trunc = live & (a_trunc | (np.asarray(truncated)[:, None] & ~a_term))
            a_term = a_term & live
        remaining = live & ~a_term & ~a_trunc
        ended = ~remaining.any(axis=1) if not reset else np.zeros(len(ids), dtype=bool)
        if reset and reset_mask is not None and len(ids) == self.num_envs:  # sync: only the masked envs reset
            keep = ~reset_mask[ids]
            self._track(ids[~keep], now_live[~keep], remaining[~keep], ended[~keep], None, True)
        else:
            self._track(ids, now_live, remaining, ended, final, reset)
        names = self.possible_agents
        observations = {name: obs[name] for name in names}
        shared = {k: v for k, v in info.items() if k not in POOL_KEYS and not k.startswith("_agent_")}
        own = info.get("agent_info") or {}
        infos: dict[str, Any] = {}
        for j, name in enumerate(names):
            agent_info: dict[str, Any] = {**shared, "live": live[:, j]}
            if name in own and isinstance(own[name], dict):
                agent_info.update(own[name])
            if final is not None and "final_obs" in info:
                agent_info["final_obs"] = _final_column(info["final_obs"], final, name)
                agent_info["_final_obs"] = np.asarray(final)
            infos[name] = agent_info
        if reset:
            return observations, None, None, None, infos
        rewards = {name: a_reward[:, j] for j, name in enumerate(names)}
        terminations = {name: a_term[:, j] for j, name in enumerate(names)}
        truncations = {name: a_trunc[:, j] for j, name in enumerate(names)}
        return observations, rewards, terminations, truncations, infos

    def _track(
        self,
        ids: np.ndarray,
        now_live: np.ndarray,
        remaining: np.ndarray,
        ended: np.ndarray,
        final: np.ndarray | None,
        reset: bool,
    ) -> None:
        """Who acts next in each env of the batch."""
        mode = self.autoreset_mode
        if reset:
            self._active[ids] = now_live
            self._over[ids] = ~now_live.any(axis=1)
            self._reset_next[ids] = False
            return
        was_reset_step = self._reset_next[ids].copy()
        active = remaining.copy()
        if mode == AutoresetMode.SAME_STEP and final is not None:
            active[final] = now_live[final]  # the new episode's agents
            ended = ended & ~final
        if mode == AutoresetMode.NEXT_STEP:
            active[was_reset_step] = now_live[was_reset_step]  # a reset step: the new episode's agents
            ended = ended & ~was_reset_step
            self._reset_next[ids] = ended
        self._active[ids] = active
        self._over[ids] = ended


def _final_column(final_obs: Any, mask: Any, name: str) -> np.ndarray:
    """One agent's last observations of the rows whose episode ended (None elsewhere), as an object
    array: Gymnasium's SAME_STEP ``final_obs`` of a Dict observation, per agent."""
    out = np.empty(len(mask), dtype=object)
    for k, done in enumerate(np.asarray(mask)):
        if done:
            out[k] = final_obs[k][name]
    return out
