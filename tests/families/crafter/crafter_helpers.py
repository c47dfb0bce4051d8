"""Lock-step comparison of envhive's Crafter with crafter 1.8.3 itself.

crafter keeps the objects of each world chunk in a Python ``set``, whose iteration order follows
the objects' memory addresses, and picks the creature to despawn by position in that order: the
same seed then plays differently in two processes (tests/families/crafter shows it). envhive
keeps each chunk's objects in the order they entered it; :func:`ordered_chunks` gives the
reference exactly that order (an insertion-ordered set in place of ``set``), and nothing else of
crafter is touched.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import crafter
import crafter.engine
import numpy as np

import envhive

ACHIEVEMENTS = sorted(crafter.constants.achievements)
ITEMS = list(crafter.constants.items)


class InsertionOrderedSet:
    """The part of ``set`` crafter's chunks use (add, remove, iteration), in insertion order."""

    def __init__(self) -> None:
        self._items: dict[Any, None] = {}

    def add(self, item: Any) -> None:
        self._items[item] = None

    def remove(self, item: Any) -> None:
        del self._items[item]

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)


@contextmanager
def ordered_chunks() -> Iterator[None]:
    """crafter's World with insertion-ordered chunk sets (see the module docstring)."""
    original = crafter.engine.World.reset

    def reset(self: Any, seed: Any = None) -> None:
        original(self, seed)
        self._chunks = collections.defaultdict(InsertionOrderedSet)

    crafter.engine.World.reset = reset  # type: ignore[method-assign]
    try:
        yield
    finally:
        crafter.engine.World.reset = original  # type: ignore[method-assign]


class Reference:
    """crafter.Env(seed=seed + i) for env i, stepped like envhive's pool in NEXT_STEP autoreset."""

    def __init__(self, n: int, seed: int, reward: bool = True, **kwargs: Any) -> None:
        self.envs = [crafter.Env(seed=seed + i, reward=reward, **kwargs) for i in range(n)]
        self.needs_reset = [False] * n

    def reset(self) -> np.ndarray:
        return np.stack([env.reset() for env in self.envs])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any] | None]]:
        obs, rewards, dones, infos = [], [], [], []
        for i, (env, a) in enumerate(zip(self.envs, actions, strict=True)):
            if self.needs_reset[i]:
                obs.append(env.reset())
                rewards.append(0.0)
                dones.append(False)
                infos.append(None)
                self.needs_reset[i] = False
                continue
            o, r, d, info = env.step(int(a))
            obs.append(o)
            rewards.append(r)
            dones.append(d)
            infos.append(info)
            self.needs_reset[i] = d
        return np.stack(obs), np.array(rewards), np.array(dones), infos


# Random actions that live long enough to see the night: mostly "do" (drink, eat, fight, gather)
# and sleep, fewer moves, a few placements and crafts.
SURVIVOR = np.array([1, 1, 1, 1, 1, 6, 3, 0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4])
SURVIVOR = SURVIVOR / SURVIVOR.sum()


def survivor(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` actions drawn with the SURVIVOR weights."""
    return rng.choice(17, size=n, p=SURVIVOR)


def lockstep(
    task: str,
    n: int,
    seed: int,
    steps: int,
    policy: Callable[[np.random.Generator, int], np.ndarray] | None = None,
    **kwargs: Any,
) -> dict[str, int]:
    """Run envhive's pool and crafter side by side for ``steps`` steps of random actions and assert
    observations, rewards, episode ends and infos equal at every step. Returns counts of what was
    covered (episode ends, achievements unlocked)."""
    rng = np.random.default_rng(seed)
    reward = task == "CrafterReward-v1"
    with ordered_chunks():
        ref = Reference(n, seed, reward, **kwargs)
        ours = envhive.make(task, num_envs=n, seed=seed, **kwargs)
        try:
            ref_obs = ref.reset()
            obs, _ = ours.reset(seed=seed)
            np.testing.assert_array_equal(obs, ref_obs, err_msg="reset observation")
            ends = night = asleep = 0
            unlocked: set[str] = set()
            for t in range(steps):
                actions = policy(rng, n) if policy else rng.integers(0, 17, size=n)
                ref_obs, ref_rew, ref_done, ref_infos = ref.step(actions)
                obs, rew, term, trunc, info = ours.step(actions)
                for i in range(n):
                    where = f"step {t} env {i}"
                    if not np.array_equal(obs[i], ref_obs[i]):
                        diff = np.argwhere(obs[i] != ref_obs[i])
                        raise AssertionError(
                            f"{where}: observation differs at {len(diff)} values, first {diff[:3].tolist()}"
                        )
                    assert rew[i] == ref_rew[i], f"{where}: reward {rew[i]} != {ref_rew[i]}"
                    assert bool(term[i] or trunc[i]) == bool(ref_done[i]), f"{where}: done"
                    ri = ref_infos[i]
                    if ri is None:
                        continue
                    assert bool(term[i]) == (ri["discount"] == 0.0), f"{where}: terminated vs discount"
                    assert info["discount"][i] == ri["discount"], f"{where}: discount"
                    assert info["reward"][i] == ri["reward"], f"{where}: info reward"
                    assert info["achievements"][i].tolist() == [ri["achievements"][k] for k in ACHIEVEMENTS], where
                    assert info["inventory"][i].tolist() == [ri["inventory"][k] for k in ITEMS], where
                    assert info["player_pos"][i].tolist() == list(ri["player_pos"]), where
                    unlocked |= {k for k, v in ri["achievements"].items() if v}
                    ends += bool(ref_done[i])
                    night += ref.envs[i]._world.daylight < 0.5
                    asleep += bool(ref.envs[i]._player.sleeping)
            return {"ends": ends, "achievements": len(unlocked), "night_steps": night, "asleep_steps": asleep}
        finally:
            ours.close()
