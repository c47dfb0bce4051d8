"""Lock-step comparison of envhive's MPE tasks with mpe2's own ``parallel_env`` (the real library,
mpe2 1.1.1 on pettingzoo 1.27.0): env i of a pool seeded ``s`` against mpe2 reset with seed ``s + i``,
the same actions, every agent's observation, reward, termination and truncation compared bit for
bit, across max_cycles truncations and the unseeded resets after them."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import envhive
from envhive.families.mpe import TASK_IDS, reference_parallel_env

__all__ = ["TASK_IDS", "lockstep", "same_bits"]


def same_bits(a: Any, b: Any) -> bool:
    """Equal to the last bit (float32 / float64 compared as integers: -0.0 and NaN payloads too)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        view = {4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
        return bool(np.array_equal(a.view(view), b.view(view)))
    return bool(np.array_equal(a, b))


def _actions(
    refs: list[Any], agents: list[str], rng: np.random.Generator, low: float, high: float
) -> list[dict[str, Any]]:
    out = []
    for ref in refs:
        acts: dict[str, Any] = {}
        for a in agents:
            space = ref.action_space(a)
            if hasattr(space, "n"):
                acts[a] = int(rng.integers(space.n))
            else:
                acts[a] = rng.uniform(low, high, space.shape).astype(np.float32)
        out.append(acts)
    return out


def _row(actions: list[dict[str, Any]], agents: list[str], continuous: bool) -> np.ndarray:
    if continuous:
        return np.stack([np.concatenate([acts[a] for a in agents]) for acts in actions]).astype(np.float32)
    return np.array([[acts[a] for a in agents] for acts in actions], dtype=np.int64)


def lockstep(
    task_id: str,
    *,
    seed: int = 0,
    num_envs: int = 2,
    steps: int = 60,
    action_seed: int = 0,
    action_range: tuple[float, float] = (0.0, 1.0),
    autoreset_mode: str = "next_step",
    reference_seed_offset: int = 0,
    **kwargs: Any,
) -> dict[str, int]:
    """Steps a pool and mpe2's envs together; asserts every value equal. Returns counts (episode
    ends, resets compared) so a test can check the run crossed what it meant to cross."""
    from gymnasium.vector import AutoresetMode

    mode = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}[autoreset_mode]
    continuous = bool(kwargs.get("continuous_actions", False))
    pool = envhive.make(task_id, num_envs=num_envs, seed=seed, autoreset_mode=mode, **kwargs)
    refs = [reference_parallel_env(task_id, **kwargs) for _ in range(num_envs)]
    agents = list(refs[0].possible_agents)
    counts = {"episode_ends": 0, "terminations": 0, "resets": 0, "steps": 0}
    try:
        obs, _ = pool.reset()
        assert list(obs) == agents, (list(obs), agents)
        for i, ref in enumerate(refs):
            ref_obs, _ = ref.reset(seed=seed + i + reference_seed_offset)
            for a in agents:
                assert same_bits(obs[a][i], ref_obs[a]), (task_id, "reset", i, a, obs[a][i], ref_obs[a])
        rng = np.random.default_rng(action_seed)
        pending = [False] * num_envs
        for t in range(steps):
            acts = _actions(refs, agents, rng, *action_range)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pettingzoo's clipping warning
                obs, rew, term, trunc, info = pool.step(_row(acts, agents, continuous))
                for i, ref in enumerate(refs):
                    where = (task_id, t, i)
                    if pending[i] and mode == AutoresetMode.NEXT_STEP:
                        ref_obs, _ = ref.reset()
                        pending[i] = False
                        counts["resets"] += 1
                        for a in agents:
                            assert same_bits(obs[a][i], ref_obs[a]), (*where, "reset", a, obs[a][i], ref_obs[a])
                        assert rew[i] == 0.0 and not term[i] and not trunc[i], where
                        continue
                    ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(acts[i])
                    counts["steps"] += 1
                    done = all(ref_term[a] or ref_trunc[a] for a in agents)
                    # SAME_STEP: the ending step's infos are in final_info (info holds the reset's).
                    step_info = info["final_info"] if mode == AutoresetMode.SAME_STEP and done else info
                    for k, a in enumerate(agents):
                        assert same_bits(np.float64(step_info["agent_reward"][i][k]), np.float64(ref_rew[a])), (
                            *where,
                            "reward",
                            a,
                            step_info["agent_reward"][i][k],
                            ref_rew[a],
                        )
                        assert bool(step_info["agent_terminated"][i][k]) == ref_term[a], (*where, "terminated", a)
                        assert bool(step_info["agent_truncated"][i][k]) == ref_trunc[a], (*where, "truncated", a)
                        assert bool(step_info["agent_live"][i][k]), (*where, "live", a)
                    team = 0.0
                    for a in agents:
                        team += ref_rew[a]
                    assert rew[i] == team, (*where, "team reward", rew[i], team)
                    assert bool(trunc[i]) == all(ref_trunc[a] for a in agents), (*where, "pool truncation")
                    assert bool(term[i]) == (done and not all(ref_trunc[a] for a in agents)), (
                        *where,
                        "pool termination",
                    )
                    if mode == AutoresetMode.SAME_STEP and done:
                        final = info["final_obs"][i]
                        for a in agents:
                            assert same_bits(final[a], ref_obs[a]), (*where, "final obs", a)
                        ref_obs, _ = ref.reset()
                        counts["resets"] += 1
                    for a in agents:
                        assert same_bits(obs[a][i], ref_obs[a]), (*where, "obs", a, obs[a][i], ref_obs[a])
                    if done:
                        counts["episode_ends"] += 1
                        counts["terminations"] += any(ref_term[a] for a in agents)
                        pending[i] = mode == AutoresetMode.NEXT_STEP
    finally:
        pool.close()
        for ref in refs:
            ref.close()
    return counts
