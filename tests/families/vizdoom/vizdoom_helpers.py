"""Lock step of envhive's ViZDoom pools with the reference (vizdoom_reference: the vizdoom package's
own DoomGame with EnvPool's definitions), one reference env per pool env seeded seed + i, under
Gymnasium's autoreset modes."""

from __future__ import annotations

from typing import Any

import numpy as np
from vizdoom_reference import INFO, Reference

import envhive
from envhive.families import vizdoom as family


def lockstep(
    task: str,
    *,
    n: int = 1,
    seed: int = 0,
    mode: str = "next_step",
    max_steps: int = 300,
    ends_wanted: int = 1,
    after_end: int = 3,
    action_seed: int = 0,
    **kwargs: Any,
) -> dict[str, int]:
    """Random actions (0/1 button values, or combined actions) to both until `ends_wanted` episodes
    ended: observations, rewards (float32 values), terminated / truncated and the 16 infos equal."""
    scenario = family.ENVPOOL_IDS[task]
    limit = int(kwargs.get("max_episode_steps", 525))
    env = envhive.make(task, num_envs=n, autoreset_mode=mode, **kwargs)
    refs = [Reference(scenario, seed + i, **kwargs) for i in range(n)]
    counts = {"terminated": 0, "truncated": 0, "steps": 0}
    try:
        obs, info = env.reset(seed=seed)
        for i, ref in enumerate(refs):
            _check(obs[i], info, i, ref, ref.reset(first=True), f"{task} reset env {i}")
        rng = np.random.default_rng(action_seed)
        elapsed = np.zeros(n, int)
        pending = np.zeros(n, bool)  # NEXT_STEP: the env resets at this step
        remaining = max_steps
        combined = bool(kwargs.get("use_combined_action"))
        for t in range(max_steps):
            if combined:
                actions = rng.integers(0, env.single_action_space.n, size=n)
            else:
                actions = rng.integers(0, 2, size=(n, refs[0].n_buttons)).astype(np.float64)
            obs, rew, term, trunc, info = env.step(actions)
            for i, ref in enumerate(refs):
                what = f"{task} {mode} step {t} env {i}"
                if pending[i]:
                    want, r, tm, tr = ref.reset(), 0.0, False, False
                    pending[i] = False
                    elapsed[i] = 0
                else:
                    want, r, tm = ref.step(actions[i])
                    elapsed[i] += 1
                    tr = bool(limit > 0 and elapsed[i] >= limit)
                    if tm or tr:
                        if mode == "next_step":
                            pending[i] = True
                        elif mode == "same_step":
                            np.testing.assert_array_equal(info["final_obs"][i], want, err_msg=f"{what} final_obs")
                            want = ref.reset()
                            elapsed[i] = 0
                _check(obs[i], info, i, ref, want, what)
                assert np.float32(rew[i]) == np.float32(r), f"{what} reward {rew[i]} != {r}"
                assert (bool(term[i]), bool(trunc[i])) == (tm, tr), f"{what} flags {term[i], trunc[i]} != {tm, tr}"
            counts["steps"] += 1
            counts["terminated"] += int(term.sum())
            counts["truncated"] += int(trunc.sum())
            if mode == "disabled" and (term | trunc).any():
                mask = term | trunc
                obs, info = env.reset(options={"reset_mask": mask})
                for i in np.flatnonzero(mask):
                    _check(obs[i], info, i, refs[i], refs[i].reset(), f"{task} masked reset env {i}")
                    elapsed[i] = 0
            if counts["terminated"] + counts["truncated"] >= ends_wanted:
                remaining = min(remaining, after_end)
            remaining -= 1
            if remaining <= 0:
                break
    finally:
        env.close()
        for ref in refs:
            ref.close()
    return counts


def _check(obs: np.ndarray, info: dict[str, Any], i: int, ref: Reference, want: np.ndarray, what: str) -> None:
    assert obs.shape == want.shape, f"{what}: shape {obs.shape} != {want.shape}"
    if not np.array_equal(obs, want):
        where = np.argwhere(obs != want)
        raise AssertionError(f"{what}: {len(where)} pixels differ, first at {where[:3].tolist()}")
    for name, value in ref.infos().items():
        assert info[name][i] == value, f"{what} info {name}: {info[name][i]} != {value}"
    assert set(INFO) <= set(info)
