"""envhive's Craftax-Classic ids against craftax 1.6.1 itself (jax 0.10.2 on the CPU), step for
step: the observation (symbolic, or the 63x63x3 pixels drawn with craftax's textures), reward and
done of every env, bit for bit, across episode ends.

The reference is craftax's own vmapped loop for N envs, from PRNGKey(seed):

    rng, _rng = jax.random.split(rng); obs, state = vmap(env.reset)(jax.random.split(_rng, N), params)
    rng, _rng = jax.random.split(rng); obs, state, reward, done, info = vmap(env.step)(jax.random.split(_rng, N), ...)

with craftax's auto-resetting step; envhive runs it in SAME_STEP autoreset mode (the reset
observation in the step that ends an episode, as craftax returns it). The first run compiles
craftax's reset and step with XLA (about 40-90 s per id on 2 cores; jax's persistent compilation
cache under $ENVHIVE_JAX_CACHE, default ~/.cache/envhive-jax, makes later runs fast), hence over 30 s.

numpy computes one input of the pixels (craftax's night-noise texture, np.exp over an array): the
family's resolver computes it with the same numpy call, so it is the reference's on every CPU
dispatch level. XLA's own code (the game, the rendering) is compiled for the host CPU; the C++
follows its fused multiply-adds as measured on this machine (docs/envs.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
craftax_env = pytest.importorskip("craftax.craftax_env")

import envhive  # noqa: E402

jax.config.update(
    "jax_compilation_cache_dir", os.environ.get("ENVHIVE_JAX_CACHE", str(Path.home() / ".cache/envhive-jax"))
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)


SYMBOLIC, PIXELS = "Craftax-Classic-Symbolic-v1", "Craftax-Classic-Pixels-v1"
_references: dict[str, Any] = {}


def reference(task: str) -> Any:
    """craftax's reset and auto-resetting step of ``task``, jitted and vmapped (once per process)."""
    if task not in _references:
        env = craftax_env.make_craftax_env_from_name(task, auto_reset=True)
        reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
        step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        _references[task] = env, env.default_params, reset, step
    return _references[task]


def lockstep(task: str, seed: int, n: int, steps: int, policy_seed: int = 0) -> dict[str, int]:
    _, params, reset, step = reference(task)
    rng = jax.random.PRNGKey(seed)
    rng, sub = jax.random.split(rng)
    ref_obs, state = reset(jax.random.split(sub, n), params)
    ours = envhive.make(task, num_envs=n, seed=seed, autoreset_mode="same_step")
    try:
        obs, _ = ours.reset(seed=seed)
        np.testing.assert_array_equal(obs.view(np.uint32), np.asarray(ref_obs).view(np.uint32), err_msg="reset")
        actions = np.random.default_rng(policy_seed).integers(0, 17, size=(steps, n))
        ends = 0
        unlocked = np.zeros(22, bool)
        for t in range(steps):
            rng, sub = jax.random.split(rng)
            ref_obs, state, reward, done, _ = step(jax.random.split(sub, n), state, actions[t], params)
            obs, rew, term, trunc, info = ours.step(actions[t])
            where = f"step {t}"
            np.testing.assert_array_equal(obs.view(np.uint32), np.asarray(ref_obs).view(np.uint32), err_msg=where)
            np.testing.assert_array_equal(rew, np.asarray(reward).astype(np.float64), err_msg=where)
            np.testing.assert_array_equal(term | trunc, np.asarray(done), err_msg=where)
            np.testing.assert_array_equal(info["timestep"], np.asarray(state.timestep), err_msg=where)
            alive = ~np.asarray(done)  # after an end, craftax's state is the next episode's
            np.testing.assert_array_equal(
                info["achievements"][alive], np.asarray(state.achievements)[alive].astype(np.uint8), err_msg=where
            )
            unlocked |= np.asarray(state.achievements).any(0)
            ends += int(np.asarray(done).sum())
        return {"ends": ends, "achievements": int(unlocked.sum())}
    finally:
        ours.close()


def test_classic_symbolic_matches_craftax() -> None:
    """4 envs, 300 random steps: several deaths and the episodes after them (see the module
    docstring for the time)."""
    seen = lockstep(SYMBOLIC, 0, 4, 300)
    assert seen["ends"] >= 2 and seen["achievements"] >= 3, seen


def test_classic_pixels_matches_craftax() -> None:
    """4 envs, 300 random steps of the pixel task: deaths and the episodes after them (see the
    module docstring for the time)."""
    seen = lockstep(PIXELS, 0, 4, 300)
    assert seen["ends"] >= 2, seen


@pytest.mark.deep
@pytest.mark.parametrize("task", [SYMBOLIC, PIXELS])
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_classic_matches_craftax_deep(task: str, seed: int) -> None:
    """8 envs, 600 random steps, many episode ends. The first of each id compiles craftax's program
    for 8 envs (about 20-30 s on 2 cores without jax's persistent cache), hence over 30 s."""
    seen = lockstep(task, seed, 8, 600, policy_seed=seed)
    assert seen["ends"] >= 4, seen
