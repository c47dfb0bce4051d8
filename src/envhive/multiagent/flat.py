"""AgentVectorEnv: the agents of a multi-agent pool as the rows of one ``gymnasium.vector.VectorEnv``,
what SuperSuit's ``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(env), num_envs)`` gives
parameter-shared trainers (SB3, CleanRL) -- row ``env * n_agents + agent``, in SuperSuit's order.

Every row needs the same spaces: agents of different spaces raise a ValueError unless ``pad=True``,
which pads them as SuperSuit's ``pad_observations_v0`` and ``pad_action_space_v0`` do (Box
observations zero-padded to the largest shape, bounds widened the same way; Discrete actions
become ``Discrete(max n)``, an action an agent does not have meaning 0; Box actions are cut back to
the agent's shape). An agent not in play (it left, SuperSuit's ``black_death``) has zero
observations, reward 0 and both flags False in its row, except at the step it leaves (its own
flags) and the step the game ends (the team's). The envs autoreset as the pool does; SAME_STEP
(the default here, SuperSuit's convention) puts the ended rows' last observations in
``infos["final_obs"]`` (``"_final_obs"``: which rows). Rewards are float32, as SuperSuit's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envhive.multiagent.batched import MultiAgentVectorEnv


def padded_space(all_spaces: list[spaces.Space[Any]], what: str) -> spaces.Space[Any]:
    """One space every agent's fits in (SuperSuit's homogenize rules, written here)."""
    first = all_spaces[0]
    if all(isinstance(s, spaces.Discrete) for s in all_spaces):
        if any(int(s.start) != 0 for s in all_spaces):  # type: ignore[attr-defined]
            raise ValueError(f"cannot pad {what} Discrete spaces that do not start at 0: {all_spaces}")
        return spaces.Discrete(max(int(s.n) for s in all_spaces))  # type: ignore[attr-defined]
    if all(isinstance(s, spaces.Box) for s in all_spaces):
        boxes = [s for s in all_spaces if isinstance(s, spaces.Box)]
        if len({b.dtype for b in boxes}) != 1 or len({len(b.shape) for b in boxes}) != 1:
            raise ValueError(f"cannot pad {what} Boxes of different dtypes or numbers of dimensions: {all_spaces}")
        shape = tuple(int(d) for d in np.max([b.shape for b in boxes], axis=0))
        lows = [_pad(b.low, shape, min(0.0, float(np.min(b.low)))) for b in boxes]
        highs = [_pad(b.high, shape, max(1e-5, float(np.max(b.high)))) for b in boxes]
        return spaces.Box(np.min(lows, axis=0), np.max(highs, axis=0), shape, boxes[0].dtype)
    raise ValueError(f"cannot pad {what} spaces other than all-Box or all-Discrete: {first} ...")


def _pad(arr: np.ndarray, shape: tuple[int, ...], value: float) -> np.ndarray:
    if arr.shape == shape:
        return arr
    return np.pad(arr, [(0, s - a) for s, a in zip(shape, arr.shape, strict=True)], constant_values=value)


class AgentVectorEnv(VectorEnv):
    """``num_envs * n_agents`` rows, one per agent of every env (see the module's doc)."""

    def __init__(self, venv: MultiAgentVectorEnv, pad: bool = False) -> None:
        if venv.batch_size != venv.num_envs:
            raise ValueError("the agent-flattened view steps every env at once: make the pool in sync mode")
        self.venv = venv
        names = venv.possible_agents
        self.n_agents = n = len(names)
        obs_spaces = [venv.observation_spaces[a] for a in names]
        act_spaces = [venv.action_spaces[a] for a in names]
        same = all(s == obs_spaces[0] for s in obs_spaces) and all(s == act_spaces[0] for s in act_spaces)
        if not same and not pad:
            detail = {a: (str(o), str(s)) for a, o, s in zip(names, obs_spaces, act_spaces, strict=True)}
            raise ValueError(
                "the agents have different observation or action spaces, so they cannot share the rows of one "
                f"vector env: {detail}; pass pad=True to pad them (as SuperSuit's pad_observations_v0 and "
                "pad_action_space_v0 do)"
            )
        self.pad = not same
        self.single_observation_space = padded_space(obs_spaces, "observation") if self.pad else obs_spaces[0]
        self.single_action_space = padded_space(act_spaces, "action") if self.pad else act_spaces[0]
        self.num_envs = venv.num_envs * n
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {**venv.metadata, "autoreset_mode": venv.autoreset_mode}
        self.render_mode = venv.render_mode
        self._obs_spaces = obs_spaces
        self._act_spaces = act_spaces

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        obs, infos = self.venv.reset(seed=seed, options=options)
        live = np.stack([infos[a]["live"] for a in self.venv.possible_agents], axis=1)
        return self._rows(obs, live), self._infos(infos)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        acts = np.asarray(actions)
        if acts.shape[:1] != (self.num_envs,):
            raise ValueError(f"actions must have one row per agent of every env ({self.num_envs}), got {acts.shape}")
        per_env = acts.reshape(self.venv.num_envs, self.n_agents, *acts.shape[1:])
        batched: dict[str, Any] = {}  # the rows of agents not in play are filled in by the action row
        for j, name in enumerate(self.venv.possible_agents):
            a = per_env[:, j]
            space = self._act_spaces[j]
            if self.pad and isinstance(space, spaces.Discrete):
                a = np.where(a > int(space.n) - 1, 0, a)
            elif self.pad and isinstance(space, spaces.Box):
                a = a[(slice(None), *(slice(0, d) for d in space.shape))]
            batched[name] = a
        obs, rewards, terms, truncs, infos = self.venv.step(batched)
        names = self.venv.possible_agents
        live = np.stack([infos[a]["live"] for a in names], axis=1)
        reward = np.stack([rewards[a] for a in names], axis=1).astype(np.float32)
        term = np.stack([terms[a] for a in names], axis=1)
        trunc = np.stack([truncs[a] for a in names], axis=1)
        # rows of agents that left earlier end with their game: the team's flags
        ended = ~(live & ~term & ~trunc).any(axis=1)
        if "_final_obs" in infos[names[0]]:
            ended = ended | np.asarray(infos[names[0]]["_final_obs"], dtype=bool)
        gone = ~live & ended[:, None]
        team_trunc = (trunc | ~live).all(axis=1) & trunc.any(axis=1)
        term = term | (gone & ~team_trunc[:, None])
        trunc = trunc | (gone & team_trunc[:, None])
        out_live = live if self.venv.autoreset_mode != AutoresetMode.SAME_STEP else self._now_live(infos, live)
        return self._rows(obs, out_live), reward.reshape(-1), term.reshape(-1), trunc.reshape(-1), self._infos(infos)

    def render(self) -> Any:
        return self.venv.render()

    def close_extras(self, **kwargs: Any) -> None:
        self.venv.close()

    # ------------------------------------------------------------------ helpers
    def _now_live(self, infos: dict[str, Any], live: np.ndarray) -> np.ndarray:
        """SAME_STEP: the rows that reset show the new episode's agents (all in play)."""
        first = infos[self.venv.possible_agents[0]]
        if "_final_obs" not in first:
            return live
        out = live.copy()
        out[np.asarray(first["_final_obs"], dtype=bool)] = True
        return out

    def _rows(self, obs: dict[str, Any], live: np.ndarray) -> np.ndarray:
        parts = []
        for j, name in enumerate(self.venv.possible_agents):
            o = np.asarray(obs[name])
            if self.pad and isinstance(self.single_observation_space, spaces.Box):
                shape = self.single_observation_space.shape
                o = _pad(o, (o.shape[0], *shape), 0)
            if not live[:, j].all():
                o = np.where(live[:, j].reshape(-1, *([1] * (o.ndim - 1))), o, 0).astype(o.dtype)
            parts.append(o)
        return np.stack(parts, axis=1).reshape(self.num_envs, *parts[0].shape[1:])

    def _infos(self, infos: dict[str, Any]) -> dict[str, Any]:
        """Gymnasium's batched infos over the rows: ``live``, ``env_id``, the pool's info fields (each
        env's repeated for its agents) and SAME_STEP's ``final_obs`` per row."""
        n = self.n_agents
        names = self.venv.possible_agents
        out: dict[str, Any] = {"live": np.stack([infos[a]["live"] for a in names], axis=1).reshape(-1)}
        for key, value in infos[names[0]].items():
            if key in ("live", "final_obs", "_final_obs") or not isinstance(value, np.ndarray):
                continue
            out[key] = np.repeat(value, n, axis=0)
        if "_final_obs" in infos[names[0]]:
            mask = np.repeat(np.asarray(infos[names[0]]["_final_obs"], dtype=bool), n)
            final = np.empty(self.num_envs, dtype=object)
            for j, name in enumerate(names):
                column = infos[name]["final_obs"]
                for e in range(self.venv.num_envs):
                    if column[e] is not None:
                        o = np.asarray(column[e])
                        if self.pad and isinstance(self.single_observation_space, spaces.Box):
                            o = _pad(o, self.single_observation_space.shape, 0)
                        final[e * n + j] = o
            out["final_obs"], out["_final_obs"] = final, mask
        return out
