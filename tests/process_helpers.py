"""Lock-step comparison of a process-backend vector env with Gymnasium's SyncVectorEnv."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space, iterate

GYM_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
OURS = ("env_id", "elapsed_step")  # envhive's own info fields


def assert_value_equal(a: Any, b: Any, what: str) -> None:
    """Equal nested observations / info values: dicts, tuples, arrays, scalars, strings."""
    if isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), f"{what}: keys {sorted(a)} != {sorted(b)}"
        for k in b:
            assert_value_equal(a[k], b[k], f"{what}[{k!r}]")
    elif isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), f"{what}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_value_equal(x, y, f"{what}[{i}]")
    elif isinstance(b, np.ndarray) and b.dtype == object:
        assert isinstance(a, np.ndarray) and a.dtype == object and a.shape == b.shape, what
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if y is None:
                assert x is None, f"{what}[{i}]: {x!r} is not None"
            else:
                assert_value_equal(x, y, f"{what}[{i}]")
    elif isinstance(b, np.ndarray | np.generic):
        a = np.asarray(a)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        assert a == b, f"{what}: {a!r} != {b!r}"


def strip_ours(info: dict[str, Any]) -> dict[str, Any]:
    """envhive's info minus the fields it adds (env_id, elapsed_step; also inside final_info)."""
    out = {k: v for k, v in info.items() if k not in OURS and k.lstrip("_") not in OURS}
    if "final_info" in out:
        out["final_info"] = strip_ours(out["final_info"])
    return out


def info_row(info: dict[str, Any], row: int) -> dict[str, Any]:
    """One env's entries of a batched info (keys whose ``_key`` mask is set at ``row``)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if key.startswith("_") or key in OURS:
            continue
        mask = info.get(f"_{key}")
        if mask is not None and not mask[row]:
            continue
        out[key] = info_row(value, row) if isinstance(value, dict) else value[row]
    return out


def record(space: gymnasium.Space[Any], out: tuple[Any, ...], row: int) -> tuple[Any, ...]:
    """One env's (obs, reward, terminated, truncated, info) from a batch."""
    obs, reward, terminated, truncated, info = out
    rows = list(iterate(batch_space(space, len(reward)), obs))
    return (rows[row], float(reward[row]), bool(terminated[row]), bool(truncated[row]), info_row(info, row))


def assert_records_equal(ours: list[tuple[Any, ...]], ref: list[tuple[Any, ...]], what: str) -> None:
    assert len(ours) == len(ref), f"{what}: {len(ours)} records != {len(ref)}"
    for t, (a, b) in enumerate(zip(ours, ref, strict=True)):
        assert_value_equal(a[0], b[0], f"{what} record {t} obs")
        assert a[1:4] == b[1:4], f"{what} record {t}: reward/flags {a[1:4]} != {b[1:4]}"
        assert_value_equal(a[4], b[4], f"{what} record {t} info")


def lockstep_sync(
    ours: gymnasium.vector.VectorEnv,
    ref: gymnasium.vector.VectorEnv,
    mode: str,
    seed: int,
    steps: int,
    actions: Callable[[int], Any],
) -> int:
    """Step both with the same actions; every output equal. Returns the episodes that ended."""
    n = ours.num_envs
    o1, i1 = ours.reset(seed=seed)
    o2, i2 = ref.reset(seed=seed)
    assert_value_equal(o1, o2, "reset obs")
    assert_value_equal(strip_ours(i1), i2, "reset info")
    np.testing.assert_array_equal(i1["env_id"], np.arange(n))
    ended = 0
    for t in range(steps):
        a = actions(t)
        out1 = ours.step(a)
        out2 = ref.step(a)
        for k, name in enumerate(("obs", "reward", "terminated", "truncated")):
            assert_value_equal(out1[k], out2[k], f"step {t} {name}")
        assert_value_equal(strip_ours(out1[4]), out2[4], f"step {t} info")
        done = out2[2] | out2[3]
        ended += int(done.sum())
        if mode == "disabled" and done.any():
            mask = done.copy()
            r1 = ours.reset(options={"reset_mask": mask})
            r2 = ref.reset(options={"reset_mask": mask.copy()})
            assert_value_equal(r1[0], r2[0], f"step {t} masked reset obs")
            assert_value_equal(strip_ours(r1[1]), r2[1], f"step {t} masked reset info")
    return ended


def sync_records(
    ref: gymnasium.vector.VectorEnv, seed: int, steps: int, actions: Callable[[int], Any]
) -> list[list[tuple[Any, ...]]]:
    """Per-env records of a sync run: the reset, then one per step."""
    n = ref.num_envs
    obs, info = ref.reset(seed=seed)
    zeros = np.zeros(n)
    per_env = [[record(ref.single_observation_space, (obs, zeros, zeros > 0, zeros > 0, info), i)] for i in range(n)]
    for t in range(steps):
        out = ref.step(actions(t))
        for i in range(n):
            per_env[i].append(record(ref.single_observation_space, out, i))
    return per_env


def async_records(
    ours: Any, seed: int, steps: int, action_of: Callable[[int, int], Any]
) -> list[list[tuple[Any, ...]]]:
    """Drive an async pool env by env (``action_of(env, t)``), keyed by the env_id recv reports;
    never assumes an order of completion."""
    n, b = ours.num_envs, ours.batch_size
    per_env: list[list[tuple[Any, ...]]] = [[] for _ in range(n)]
    sent = np.zeros(n, dtype=int)
    ours.async_reset(seed=seed)
    while min(len(r) for r in per_env) < steps + 1:
        out = ours.recv()
        ids = out[4]["env_id"]
        assert ids.shape == (b,) and len(set(ids.tolist())) == b
        for row, i in enumerate(ids.tolist()):
            per_env[i].append(record(ours.single_observation_space, out, row))
        acts = [action_of(i, min(sent[i], steps - 1)) for i in ids.tolist()]
        ours.send(np.stack(acts), ids)
        sent[ids] += 1
    return [r[: steps + 1] for r in per_env]
