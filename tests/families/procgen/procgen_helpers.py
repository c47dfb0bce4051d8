"""Lock-step comparison of envhive's Procgen pools with the official engine driven directly
(procgen_harness: one instance per env, env i made with rand_seed = seed + i), under each of
Gymnasium's autoreset modes as SyncVectorEnv applies them to upstream's gym env."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from procgen_harness import GymView

import envhive
from envhive.families import procgen as family

# Every id the family registers, with the game and mode it runs.
IDS: dict[str, tuple[str, str]] = {family.gym_id(g): (g, "hard") for g in family.GAMES} | family.ENVPOOL_IDS
MODE_NAMES = ("next_step", "same_step", "disabled")


@dataclass
class Ends:
    terminations: int = 0
    truncations: int = 0
    completions: int = 0  # ends with prev_level_complete
    steps: int = 0
    level_seeds: set[int] = field(default_factory=set)


class Reference:
    """n official engines, env i seeded seed + i, as Gymnasium's SyncVectorEnv runs upstream's gym env
    (gym3's ToGymEnv) in `mode`; terminated / truncated split by the engine's own clock as envhive
    documents it (read from its serialized state, which procgen refuses to write with generated
    assets: then the family's table, itself checked against the engine by test_procgen_kwargs)."""

    def __init__(self, game: str, n: int, seed: int, mode: str, **kwargs: Any) -> None:
        self.envs = [GymView(game, seed + i, **kwargs) for i in range(n)]
        mode_name = str(kwargs.get("distribution_mode", "hard"))
        self.timeouts = [
            family.timeout(game, mode_name) if kwargs.get("use_generated_assets") else env.engine.timeout()
            for env in self.envs
        ]
        self.mode = mode
        self.level_steps = [0] * n
        self.pending = [True] * n  # at a level's first frame no reset has shown yet
        self.autoreset = np.zeros(n, bool)

    def reset(self, mask: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        n = len(self.envs)
        mask = np.ones(n, bool) if mask is None else mask
        obs = np.zeros((n, 64, 64, 3), np.uint8)
        for i in np.flatnonzero(mask):
            obs[i] = self._reset(i)
        return obs, self.infos()

    def _reset(self, i: int) -> np.ndarray:
        env = self.envs[i]
        self.autoreset[i] = False
        self.level_steps[i] = 0
        if not self.pending[i]:  # a level under way: the engine's forced reset
            return env.force_reset()
        self.pending[i] = False
        return env.reset()

    def infos(self) -> dict[str, np.ndarray]:
        rows = [env.engine.infos() for env in self.envs]
        return {
            "level_seed": np.array([r["level_seed"] for r in rows], np.int32),
            "prev_level_seed": np.array([r["prev_level_seed"] for r in rows], np.int32),
            "prev_level_complete": np.array([r["prev_level_complete"] for r in rows], np.uint8),
        }

    def step(self, actions: np.ndarray, ends: Ends) -> tuple[Any, ...]:
        n = len(self.envs)
        obs = np.zeros((n, 64, 64, 3), np.uint8)
        rew = np.zeros(n)
        term, trunc = np.zeros(n, bool), np.zeros(n, bool)
        final_obs = np.zeros_like(obs)
        for i, env in enumerate(self.envs):
            if self.mode == "next_step" and self.autoreset[i]:
                obs[i] = self._reset(i)
                continue
            s = env.step(int(actions[i]))
            self.level_steps[i] += 1
            complete = bool(s.info["prev_level_complete"])
            ends.completions += complete
            if s.done:
                trunc[i] = self.level_steps[i] >= self.timeouts[i] and not complete
                term[i] = not trunc[i]
                ends.level_seeds.add(s.info["prev_level_seed"])
            if s.done or complete:
                self.level_steps[i] = 0
            self.pending[i] = s.done
            rew[i], obs[i] = s.reward, s.obs
            self.autoreset[i] = s.done
            if self.mode == "same_step" and s.done:
                final_obs[i] = s.obs
                obs[i] = self._reset(i)
        ends.terminations += int(term.sum())
        ends.truncations += int(trunc.sum())
        ends.steps += 1
        return obs, rew, term, trunc, self.infos(), final_obs


def assert_frames(ours: np.ndarray, ref: np.ndarray, what: str) -> None:
    assert ours.shape == ref.shape and ours.dtype == ref.dtype, f"{what}: {ours.dtype}{ours.shape} != {ref.shape}"
    if not np.array_equal(ours, ref):
        where = np.argwhere(ours != ref)
        raise AssertionError(f"{what}: {len(where)} values differ, first at {where[:3].tolist()}")


def assert_infos(ours: dict[str, Any], ref: dict[str, np.ndarray], what: str) -> None:
    for key, value in ref.items():
        got = np.asarray(ours[key])
        assert got.dtype == value.dtype, f"{what} {key}: dtype {got.dtype} != {value.dtype}"
        np.testing.assert_array_equal(got, value, err_msg=f"{what} {key}")


def lockstep(
    task: str,
    *,
    n: int = 2,
    seed: int = 0,
    mode: str = "next_step",
    max_steps: int = 1500,
    after_end: int = 10,
    ends_wanted: int = 1,
    action_seed: int = 0,
    **kwargs: Any,
) -> Ends:
    """Steps an envhive pool of `task` and the reference with the same random actions until
    `ends_wanted` episodes ended (then `after_end` more steps) or `max_steps`: every frame, reward,
    flag and info equal; SAME_STEP's final observations; DISABLED's masked resets. With
    ``render_mode="rgb_array"`` the pool also draws every env's frame after every step (the
    reference never draws)."""
    game, dist_mode = IDS[task]
    ref_kwargs = dict(kwargs)
    rendering = ref_kwargs.pop("render_mode", None) is not None
    ref_kwargs.setdefault("distribution_mode", dist_mode)
    env = envhive.make(task, num_envs=n, autoreset_mode=mode, **kwargs)
    ref = Reference(game, n, seed, mode, **ref_kwargs)
    ends = Ends()
    try:
        o1, i1 = env.reset(seed=seed)
        o2, i2 = ref.reset()
        assert_frames(o1, o2, f"{task} reset")
        assert_infos(i1, i2, f"{task} reset")
        rng = np.random.default_rng(action_seed)
        remaining = max_steps
        for t in range(max_steps):
            actions = rng.integers(0, 15, size=n)
            obs1, rew1, term1, trunc1, info1 = env.step(actions)
            if rendering:
                assert len(env.render()) == n
            obs2, rew2, term2, trunc2, info2, final2 = ref.step(actions, ends)
            what = f"{task} {mode} step {t}"
            assert_frames(obs1, obs2, f"{what} obs")
            np.testing.assert_array_equal(rew1, rew2, err_msg=f"{what} reward")
            np.testing.assert_array_equal(term1, term2, err_msg=f"{what} terminated")
            np.testing.assert_array_equal(trunc1, trunc2, err_msg=f"{what} truncated")
            assert_infos(info1, info2, what)
            done = term2 | trunc2
            if mode == "same_step" and done.any():
                np.testing.assert_array_equal(info1["_final_obs"], done, err_msg=f"{what} _final_obs")
                for i in np.flatnonzero(done):
                    assert_frames(info1["final_obs"][i], final2[i], f"{what} final_obs[{i}]")
            if mode == "disabled" and done.any():
                r1, ri1 = env.reset(options={"reset_mask": done.copy()})
                r2, ri2 = ref.reset(done.copy())
                assert_frames(r1[done], r2[done], f"{what} masked reset")
                assert_infos(
                    {k: v[done] for k, v in ri1.items() if k in ri2}, {k: v[done] for k, v in ri2.items()}, what
                )
            if ends.terminations + ends.truncations >= ends_wanted:
                remaining = min(remaining, after_end)
            remaining -= 1
            if remaining <= 0:
                break
    finally:
        env.close()
    return ends
