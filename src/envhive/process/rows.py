"""RowReader: a batch out of the process backend's arena, in Gymnasium's vector convention.

The workers write each env's row (observation leaves, reward, flags, elapsed steps, status, an info
record, SAME_STEP's final observation and info) into the arena; the reader copies the rows of a
batch out (the arena is reused by the next call) and assembles ``(obs, reward, terminated,
truncated, info)``: infos batched as ``VectorEnv._add_info`` does, ``final_obs`` / ``final_info``
with their masks where an episode ended, ``EnvError`` for envs that raised.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envhive.backend import Step
from envhive.call_rules import failure_message
from envhive.errors import EnvError
from envhive.leaves import nest
from envhive.process.pool import ProcessPool
from envhive.process.protocol import FLAG_ALL, FLAG_ERROR, FLAG_FINAL, FLAG_INFO


class RowReader:
    """Reads batches of ``pool``'s envs (SAME_STEP's final observations where the arena has them)."""

    def __init__(self, pool: ProcessPool, disabled: bool) -> None:
        a = pool.arrays
        n = len(pool.obs_leaves)
        self.pool = pool
        self.space = pool.observation_space
        self.obs = [a[f"obs{i}"] for i in range(n)]
        self.final_obs = [a[f"final_obs{i}"] for i in range(n)] if "has_final" in a else []
        self.objects = [leaf.is_object for leaf in pool.obs_leaves]
        self.any_objects = any(self.objects)
        self.flat_obs = n == 1 and not pool.obs_leaves[0].path and not self.objects[0]
        self.reward = a["reward"]
        self.terminated = a["terminated"].view(np.bool_)
        self.truncated = a["truncated"].view(np.bool_)
        self.elapsed = a["elapsed"]
        self.status = a["status"]
        self.info_kind = a["info_kind"]
        self.disabled = disabled  # (only for the failure message)
        self.all_ids = np.arange(pool.num_envs, dtype=np.int32)

    def drop_views(self) -> None:
        """Forget every view of the arena (before it is unmapped)."""
        self.obs, self.final_obs = [], []
        for name in ("reward", "terminated", "truncated", "elapsed", "status", "info_kind"):
            setattr(self, name, None)

    def collect(self, ids: np.ndarray, info_ids: np.ndarray | None = None, flags: int | None = None) -> Step:
        """The outputs of rows ``ids`` (env ids, in row order; ``all_ids`` for every env). A masked
        sync reset passes ``info_ids``: only the envs it reset report infos. ``flags``: the workers'
        batch flags when the caller read them already."""
        pool = self.pool
        full = ids is self.all_ids
        if flags is None:
            flags = pool.commands.flags() if full else FLAG_ALL  # a full sync batch: only what the workers flagged
        if full and not flags and self.flat_obs:  # the common sync step: copies only
            return (
                self.obs[0].copy(),
                self.reward.copy(),
                self.terminated.copy(),
                self.truncated.copy(),
                {"env_id": self.all_ids.copy(), "elapsed_step": self.elapsed.copy()},
            )
        # (no local may hold a view of the arena when an exception leaves this frame: a traceback
        # kept by the caller would keep the mapping alive after close)
        if flags & FLAG_ERROR and (self.status.any() if full else self.status[ids].any()):
            pool.completions.drain_all()
            self.raise_env_errors(ids[np.flatnonzero(self.status[ids])])
        obs_parts = self._obs_parts(self.obs, ids, full)
        if full:
            reward = self.reward.copy()
            terminated = self.terminated.copy()
            truncated = self.truncated.copy()
            elapsed = self.elapsed.copy()
            kinds = self.info_kind.copy() if flags & FLAG_INFO else None
        else:
            reward = self.reward[ids]
            terminated = self.terminated[ids]
            truncated = self.truncated[ids]
            elapsed = self.elapsed[ids]
            kinds = self.info_kind[ids]
        if info_ids is not None and kinds is not None:
            keep = np.zeros(pool.num_envs, dtype=bool)
            keep[info_ids] = True
            kinds = np.where(keep[ids], kinds, 0)
        obs = obs_parts[0] if self.flat_obs else nest(self.space, obs_parts)
        infos: dict[str, Any] = {}
        if kinds is not None and kinds.any():
            pool.completions.learn_layouts(kinds)
            infos = pool.infos.batch(0, ids, kinds, lambda e: pool.completions.pickled_info(e, 0))
        if self.final_obs and flags & FLAG_FINAL:
            self._add_final(ids, infos)
        infos["env_id"] = self.all_ids.copy() if full else ids.astype(np.int32)
        infos["elapsed_step"] = elapsed
        return obs, reward, terminated, truncated, infos

    def _obs_parts(self, arrays: list[np.ndarray], ids: np.ndarray, full: bool) -> list[Any]:
        """One batch value per observation leaf (object leaves unpickled, as a tuple)."""
        if self.any_objects:
            id_list = ids.tolist()
            prefix = "obs" if arrays is self.obs else "final_obs"
            return [
                self.pool.completions.read_objects(f"{prefix}{i}", id_list) if is_object else arr[ids]
                for i, (arr, is_object) in enumerate(zip(arrays, self.objects, strict=True))
            ]
        return [arr.copy() for arr in arrays] if full else [arr[ids] for arr in arrays]

    def _add_final(self, ids: np.ndarray, infos: dict[str, Any]) -> None:
        """SAME_STEP: ``final_obs`` / ``final_info`` of the envs whose episode ended in this call."""
        pool = self.pool
        has = pool.arrays["has_final"][ids].view(np.bool_)
        if not has.any():
            return
        size = len(ids)
        rows = np.flatnonzero(has)
        final_ids = ids[rows]
        final_obs = np.full(size, None, dtype=object)
        parts = self._obs_parts(self.final_obs, final_ids, False)
        for k, row in enumerate(rows.tolist()):
            final_obs[row] = parts[0][k] if self.flat_obs else nest(self.space, [p[k] for p in parts])
        kinds = np.zeros(size, dtype=np.int32)
        kinds[rows] = pool.arrays["final_info_kind"][final_ids]
        final_info: dict[str, Any] = {}
        if kinds.any():
            pool.completions.learn_layouts(kinds)
            final_info = pool.infos.batch(1, ids, kinds, lambda e: pool.completions.pickled_info(e, 1))
        mask = has.copy()
        env_id = np.zeros(size, dtype=np.int32)
        env_id[rows] = final_ids
        elapsed = np.zeros(size, dtype=np.int32)
        elapsed[rows] = pool.arrays["final_elapsed"][final_ids]
        final_info["env_id"], final_info["_env_id"] = env_id, mask.copy()
        final_info["elapsed_step"], final_info["_elapsed_step"] = elapsed, mask.copy()
        infos["final_obs"], infos["_final_obs"] = final_obs, mask.copy()
        infos["final_info"], infos["_final_info"] = final_info, mask

    def raise_env_errors(self, failed: np.ndarray) -> None:
        """EnvError for the envs in ``failed``, with the first one's traceback; they start a new
        episode on their next step (DISABLED: after a reset)."""
        pool = self.pool
        failed_ids = [int(i) for i in failed]
        texts = [pool.completions.errors.pop(i, "(no traceback came back)") for i in failed_ids]
        self.status[failed] = 0
        head = texts[0].strip().splitlines()[0] if texts[0].strip() else "error"
        text = failure_message(failed_ids, head, self.disabled)
        raise EnvError(f"{text}\n{texts[0]}", failed_ids[0], failed_ids, head)
