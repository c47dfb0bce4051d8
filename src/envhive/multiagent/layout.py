"""The agents of a multi-agent pool and their action row: where each agent's action sits in the row
the pool takes (``csrc/core/multi_agent.h``: every agent Discrete -> one int64 per agent; every agent
a Box of one dtype -> every agent's values, concatenated), and the checks of an actions dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from envhive.call_rules import message
from envhive.registry import AgentSpaces


def action_row_space(action_spaces: Sequence[spaces.Space[Any]], names: Sequence[str]) -> spaces.Box:
    """The pool-level action space of agents acting with these spaces (the Python twin of
    ``agents_action_space`` in ``csrc/core/multi_agent.h``); ValueError for a mix of kinds."""
    if not action_spaces:
        raise ValueError("a multi-agent env needs at least one agent")
    if all(isinstance(s, spaces.Discrete) for s in action_spaces):
        low = np.array([int(s.start) for s in action_spaces], dtype=np.int64)  # type: ignore[attr-defined]
        high = np.array([int(s.start) + int(s.n) - 1 for s in action_spaces], dtype=np.int64)  # type: ignore[attr-defined]
        return spaces.Box(low, high, (len(action_spaces),), np.int64)
    if all(isinstance(s, spaces.Box) for s in action_spaces):
        boxes = [s for s in action_spaces if isinstance(s, spaces.Box)]
        dtypes = {b.dtype for b in boxes}
        if len(dtypes) != 1:
            raise ValueError(f"the agents act with Boxes of different dtypes {sorted(map(str, dtypes))}")
        low = np.concatenate([b.low.ravel() for b in boxes])
        high = np.concatenate([b.high.ravel() for b in boxes])
        return spaces.Box(low, high, low.shape, boxes[0].dtype)
    kinds = {name: type(s).__name__ for name, s in zip(names, action_spaces, strict=True)}
    raise ValueError(
        f"every agent must act with a Discrete space, or every one with a Box (envhive's action row); got {kinds}"
    )


@dataclass(frozen=True)
class AgentLayout:
    """The agents of a pool, in order, and their places in the action row."""

    agents: tuple[AgentSpaces, ...]
    row_space: spaces.Box
    offsets: tuple[int, ...]
    counts: tuple[int, ...]
    discrete: bool

    @classmethod
    def of(cls, agents: Sequence[AgentSpaces]) -> AgentLayout:
        names = [a.name for a in agents]
        row = action_row_space([a.action_space for a in agents], names)
        discrete = isinstance(agents[0].action_space, spaces.Discrete)
        counts = tuple(1 if discrete else int(np.prod(a.action_space.shape or ())) for a in agents)
        offsets = tuple(int(x) for x in np.cumsum((0, *counts[:-1])))
        return cls(tuple(agents), row, offsets, counts, discrete)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.agents]

    def build_row(self, actions: Any, rows: int, required: np.ndarray) -> np.ndarray:
        """The action row of ``rows`` envs from a dict {agent: batched actions}. ``required`` (rows x
        agents, bool) marks the agents in play in each env: they must have an action; the values of
        the others are replaced by filler (the row space's low)."""
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict keyed by agent name, got {type(actions).__name__}")
        names = self.names
        unknown = sorted(str(k) for k in actions if k not in names)
        if unknown:
            raise ValueError(f"actions for unknown agent(s) {unknown}; this env's agents are {names}")
        row = np.empty((rows, int(self.row_space.shape[0])), dtype=self.row_space.dtype)
        filler = self.row_space.low
        for i, agent in enumerate(self.agents):
            lo, n = self.offsets[i], self.counts[i]
            need = required[:, i]
            if agent.name not in actions:
                if need.any():
                    raise ValueError(
                        f"actions lack agent {agent.name!r}, which is in play in env row(s) "
                        f"{np.flatnonzero(need).tolist()} (give every agent in play an action)"
                    )
                row[:, lo : lo + n] = filler[lo : lo + n]
                continue
            value = np.asarray(actions[agent.name])
            space = agent.action_space
            if self.discrete:
                if value.shape != (rows,):
                    raise ValueError(
                        message("action_shape", where=f" of agent {agent.name!r}", expected=(rows,), got=value.shape)
                    )
                if value.dtype.kind not in "iub":
                    raise TypeError(
                        f"the actions of agent {agent.name!r} must be integers ({space}), got dtype {value.dtype}"
                    )
                start, count = int(space.start), int(space.n)  # type: ignore[attr-defined]
                bad = need & ((value < start) | (value >= start + count))
                if bad.any():
                    k = int(np.flatnonzero(bad)[0])
                    raise ValueError(f"action {int(value[k])} of agent {agent.name!r} (env row {k}) is not in {space}")
                row[:, lo] = value
            else:
                want = (rows, *space.shape)  # type: ignore[misc]
                if value.shape != want:
                    raise ValueError(
                        message("action_shape", where=f" of agent {agent.name!r}", expected=want, got=value.shape)
                    )
                row[:, lo : lo + n] = value.reshape(rows, n)
            if not need.all():
                row[~need, lo : lo + n] = filler[lo : lo + n]
        return row
