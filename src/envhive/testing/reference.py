"""Step an envhive pool and its reference side by side and compare everything: the one lock-step
harness of envhive's families, its plug-in template and yours.

:func:`assert_matches_reference` runs an envhive pool (made with ``seed=s``) and a reference
Gymnasium ``VectorEnv`` (reset with ``seed=s``: Gymnasium's ``SyncVectorEnv`` of the reference
envs, or any adapter with its API) with the same actions for a number of steps, in the pool's
autoreset mode, and asserts equal observations (leaf by leaf for Dict and Tuple spaces), rewards,
terminations, truncations, SAME_STEP's final observations and infos, the pool's ``env_id`` and
``elapsed_step``, and DISABLED mode's masked resets. Comparisons are bit-exact unless a
:class:`Tolerance` for that leaf says otherwise, with its reason: the only place a bound may come
from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from envhive.vector import HiveVectorEnv

Policy = Callable[[Any, np.random.Generator], Any]
"""``policy(obs, rng) -> actions`` for every env of the pool (a batch)."""


@dataclass(frozen=True)
class Tolerance:
    """A bound for one compared leaf (``"reward"``, an observation leaf's path such as
    ``"obs/image"``, or ``"info/<name>"``): ``|envhive - reference| <= atol + rtol * |reference|``.
    ``reason`` says why the leaf cannot be bit-exact (e.g. a reference kernel that differs per CPU
    and that the task cannot call)."""

    atol: float
    rtol: float = 0.0
    reason: str = ""

    def __post_init__(self) -> None:
        if not self.reason:
            raise ValueError("a Tolerance needs its reason: why this leaf cannot be compared bit for bit")


@dataclass
class LockstepStats:
    """What a lock-step run went through: steps, and episode ends per env."""

    steps: int = 0
    terminated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    truncated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def episodes(self) -> np.ndarray:
        """Episode ends per env."""
        return self.terminated + self.truncated


def random_actions(space: spaces.Space[Any], n: int, rng: np.random.Generator, overshoot: float = 1.5) -> np.ndarray:
    """A batch of ``n`` actions of ``space``: uniform over a Discrete's values; over a Box's bounds
    times ``overshoot`` (the envs must clip what a policy sends; infinite bounds as +-1), in its dtype."""
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=n)
    if isinstance(space, spaces.Box):
        low = np.where(np.isfinite(space.low), space.low, -1.0) * overshoot
        high = np.where(np.isfinite(space.high), space.high, 1.0) * overshoot
        return rng.uniform(low, high, size=(n, *space.shape)).astype(space.dtype)
    raise TypeError(f"random_actions: no random policy for {space}")


def assert_matches_reference(
    env: HiveVectorEnv,
    reference: gymnasium.vector.VectorEnv,
    *,
    seed: Any,
    steps: int,
    policy: Policy | None = None,
    action_seed: int = 0,
    tolerances: Mapping[str, Tolerance] | None = None,
    infos: bool = True,
    min_episodes: int = 0,
) -> LockstepStats:
    """Step ``env`` and ``reference`` with the same actions for ``steps`` steps and assert they agree.

    ``env`` was made with ``seed=seed``; ``reference`` is reset with ``reset(seed=seed)`` and must
    run in ``env``'s autoreset mode. ``policy(obs, rng)`` picks each step's actions (default: random,
    overshooting Box bounds, from ``np.random.default_rng(action_seed)``). ``infos``: every info the
    reference reports (its ``_<name>`` masks select the envs) equals envhive's. ``min_episodes``:
    fail unless every env ended at least that many episodes (so the comparison crossed resets).
    """
    tolerances = dict(tolerances or {})
    mode = env.autoreset_mode
    ref_mode = reference.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    assert ref_mode == mode, f"the reference runs autoreset mode {ref_mode}, envhive {mode}"
    n = env.num_envs
    rng = np.random.default_rng(action_seed)
    pick: Policy = policy or (lambda _obs, r: random_actions(env.single_action_space, n, r))
    compare = _Compare(env.single_observation_space, tolerances)

    h_obs, h_info = env.reset()
    g_obs, g_info = reference.reset(seed=seed)
    compare.obs(h_obs, g_obs, "reset")
    if infos:
        compare.infos(h_info, g_info, "reset")
    np.testing.assert_array_equal(h_info["env_id"], np.arange(n), err_msg="reset env_id")
    np.testing.assert_array_equal(h_info["elapsed_step"], np.zeros(n), err_msg="reset elapsed_step")
    elapsed = np.zeros(n, dtype=np.int64)
    ended = np.zeros(n, dtype=bool)
    stats = LockstepStats(terminated=np.zeros(n, dtype=int), truncated=np.zeros(n, dtype=int))
    for t in range(steps):
        actions = pick(h_obs, rng)
        h_obs, h_rew, h_term, h_trunc, h_info = env.step(_copy(actions))
        g_obs, g_rew, g_term, g_trunc, g_info = reference.step(_copy(actions))
        where = f"step {t}"
        compare.obs(h_obs, g_obs, where)
        compare.leaf("reward", np.asarray(h_rew), np.asarray(g_rew), where)
        np.testing.assert_array_equal(h_term, g_term, err_msg=f"{where} terminated")
        np.testing.assert_array_equal(h_trunc, g_trunc, err_msg=f"{where} truncated")
        np.testing.assert_array_equal(h_info["env_id"], np.arange(n), err_msg=f"{where} env_id")
        if infos:
            compare.infos(h_info, g_info, where)
        done = np.asarray(h_term) | np.asarray(h_trunc)
        # NEXT_STEP: the step after an episode ended is the reset (elapsed 0).
        elapsed = np.where(ended, 0, elapsed + 1) if mode == AutoresetMode.NEXT_STEP else elapsed + 1
        if mode == AutoresetMode.SAME_STEP:
            compare.final(h_info, g_info, done, elapsed, infos, where)
            elapsed = np.where(done, 0, elapsed)
        np.testing.assert_array_equal(h_info["elapsed_step"], elapsed, err_msg=f"{where} elapsed_step")
        stats.terminated += np.asarray(h_term, dtype=int)
        stats.truncated += np.asarray(h_trunc, dtype=int)
        stats.steps += 1
        ended = done
        if mode == AutoresetMode.DISABLED and done.any():
            h_obs, h_info = env.reset(options={"reset_mask": done.copy()})
            g_obs, g_info = reference.reset(options={"reset_mask": done.copy()})
            compare.obs(h_obs, g_obs, f"{where} masked reset")
            if infos:
                compare.infos(h_info, g_info, f"{where} masked reset")
            elapsed = np.where(done, 0, elapsed)
            np.testing.assert_array_equal(h_info["elapsed_step"], elapsed, err_msg=f"{where} masked reset")
            ended = np.zeros(n, dtype=bool)
    if min_episodes:
        assert stats.episodes.min() >= min_episodes, (
            f"every env should have ended {min_episodes} episode(s) in {steps} steps; ends per env: {stats.episodes}"
        )
    return stats


def _copy(actions: Any) -> Any:
    return {k: np.array(v) for k, v in actions.items()} if isinstance(actions, dict) else np.array(actions)


class _Compare:
    """Comparisons of one run: the observation space's leaves, each exact or within its Tolerance."""

    def __init__(self, space: spaces.Space[Any], tolerances: Mapping[str, Tolerance]) -> None:
        self.space = space
        self.tolerances = tolerances

    def leaf(self, name: str, got: Any, expected: Any, where: str) -> None:
        what = f"{where} {name}"
        got_arr, exp_arr = np.asarray(got), np.asarray(expected)
        if got_arr.dtype.kind in "SUO" or exp_arr.dtype.kind in "SUO":  # text: as str, exactly
            got_list = [g.decode() if isinstance(g, bytes) else g for g in got_arr.ravel().tolist()]
            exp_list = [e.decode() if isinstance(e, bytes) else e for e in exp_arr.ravel().tolist()]
            assert got_list == exp_list, f"{what}: {got_list} != {exp_list}"
            return
        assert got_arr.shape == exp_arr.shape, f"{what}: shape {got_arr.shape} != {exp_arr.shape}"
        tolerance = self.tolerances.get(name)
        if tolerance is None:
            np.testing.assert_array_equal(got_arr, exp_arr.astype(got_arr.dtype, copy=False), err_msg=what)
        else:
            np.testing.assert_allclose(
                got_arr, exp_arr, rtol=tolerance.rtol, atol=tolerance.atol, err_msg=f"{what} ({tolerance.reason})"
            )

    def obs(
        self, got: Any, expected: Any, where: str, space: spaces.Space[Any] | None = None, path: str = "obs"
    ) -> None:
        space = self.space if space is None else space
        if isinstance(space, spaces.Dict):
            assert isinstance(got, dict) and isinstance(expected, dict), f"{where} {path}: a dict of leaves"
            assert list(got) == list(space.spaces), f"{where} {path}: keys {list(got)}"
            for key, sub in space.spaces.items():
                self.obs(got[key], expected[key], where, sub, f"{path}/{key}")
        elif isinstance(space, spaces.Tuple):
            for i, sub in enumerate(space.spaces):
                self.obs(got[i], expected[i], where, sub, f"{path}/{i}")
        else:
            self.leaf(path, got, expected, where)

    def infos(self, got: dict[str, Any], expected: dict[str, Any], where: str) -> None:
        """Every info the reference reports equals envhive's for the envs its mask selects (a batched
        info takes the dtype of the first value Gymnasium sees: envhive's are compared after that cast)."""
        for key, value in expected.items():
            if key.startswith("_") or key in ("final_obs", "final_info"):
                continue
            assert key in got, f"{where}: envhive has no info[{key!r}]"
            mask = np.asarray(expected.get("_" + key, np.ones(len(np.asarray(value)), dtype=bool)))
            exp = np.asarray(value)[mask]
            if exp.dtype == object:
                exp = np.stack(list(exp)) if len(exp) else exp
            self.leaf(f"info/{key}", np.asarray(got[key])[mask].astype(exp.dtype, copy=False), exp, where)

    def final(
        self,
        got: dict[str, Any],
        expected: dict[str, Any],
        done: np.ndarray,
        elapsed: np.ndarray,
        infos: bool,
        where: str,
    ) -> None:
        """SAME_STEP: final observations (and infos) of the envs whose episode ended this step."""
        assert ("_final_obs" in got) == ("_final_obs" in expected) == bool(done.any()), f"{where} final_obs"
        if not done.any():
            return
        np.testing.assert_array_equal(got["_final_obs"], done, err_msg=f"{where} _final_obs")
        np.testing.assert_array_equal(got["_final_obs"], expected["_final_obs"], err_msg=f"{where} _final_obs")
        np.testing.assert_array_equal(got["_final_info"], expected["_final_info"], err_msg=f"{where} _final_info")
        assert got["final_obs"].dtype == object and got["final_obs"].shape == done.shape, where
        for i in np.flatnonzero(done):
            self.obs(got["final_obs"][i], expected["final_obs"][i], f"{where} final_obs[{i}]")
            assert got["final_info"]["elapsed_step"][i] == elapsed[i], f"{where} final elapsed_step[{i}]"
        for i in np.flatnonzero(~done):
            assert got["final_obs"][i] is None, f"{where} final_obs[{i}]"
        if infos:
            self.infos(got["final_info"], expected["final_info"], f"{where} final_info")
