"""RayBackend: envs in EnvShard actors on any Ray nodes, as a backend of the one Gymnasium facade.

An int seed ``s`` gives env ``g`` the seed ``s + g``, so the trajectories are the same however the
envs are split (one local pool, or S shards on S nodes). Sync mode steps every shard at once (one
Ray call per shard, all in flight together). Async mode (``batch_size < num_envs``) is first-ready
across shards: each shard has at most one call in flight, ``recv`` returns the first ``batch_size /
shard size`` shards to answer (``ray.wait``), and ``send(actions, info["env_id"])`` steps exactly
those again -- the EnvPool loop. Faults: see ``envhive.ray.shards``.

What a call may do given each global env's state is ``envhive.call_rules.CallState``'s to say, as
for every backend (what is in flight it reads off the shards after each call); the rules of whole
shards are this module's own, with their messages beside the others in ``envhive.call_rules``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import ray

from envhive.backend import Capabilities, Step
from envhive.call_rules import IDLE, RESET, STEP, CallState, message
from envhive.checks import autoreset_mode
from envhive.errors import EnvError, PoolClosedError
from envhive.leaves import concatenate, nest
from envhive.ray.shard import EnvShard, ShardLayout, resolve_global_seeds
from envhive.ray.shards import FINAL_KEYS, Shard, Shards, masked_shards
from envhive.registry import TaskSpec, backend_for, make_spec


class RayBackend:
    """``num_envs`` envs of ``task`` in ``num_shards`` EnvShard actors (see ``RayVectorEnv``)."""

    capabilities = Capabilities()  # the facade checks actions and env ids before they go to the shards
    attributes = frozenset(
        {"layout", "restarts", "max_restarts", "step_timeout", "start_timeout", "shard_info", "shards"}
    )

    def __init__(
        self,
        task: Any,
        num_envs: int,
        num_shards: int,
        *,
        batch_size: int | None,
        seed: Any,
        backend: str | None,
        actor_options: dict[str, Any],
        max_restarts: int,
        step_timeout: float | None,
        start_timeout: float,
        shard_class: type[EnvShard],
        kwargs: dict[str, Any],
    ) -> None:
        self.layout = ShardLayout.split(num_envs, num_shards)
        self.num_envs = num_envs
        self.batch_size = num_envs if not batch_size else int(batch_size)
        self._sync = self.batch_size == num_envs
        if not self._sync:
            size = self.layout.sizes[0]
            if len(set(self.layout.sizes)) != 1 or self.batch_size % size or not 0 < self.batch_size < num_envs:
                raise ValueError(
                    message("shards_uneven", num_envs=num_envs, num_shards=num_shards, batch_size=batch_size)
                )
        native = backend_for(task, backend) == "native"
        # A native task's kwargs are checked here before any actor starts; the process backend's
        # spaces come from the first shard.
        local_spec = make_spec(task, num_envs=num_envs, seed=None, **kwargs) if native else None
        # The shards' pools return Text leaves as their backend does.
        self.capabilities = Capabilities(text_bytes=native)
        self.task = task
        self.max_restarts = max_restarts
        self.step_timeout = step_timeout
        self.start_timeout = start_timeout
        self._closed = False
        mode = autoreset_mode(kwargs.get("autoreset_mode", "next_step"))
        self.state = CallState(num_envs, self.batch_size, mode)
        self._shards = Shards(
            self.layout,
            ray.remote(shard_class).options(**actor_options),
            (task,),
            {"backend": backend, **kwargs},
            resolve_global_seeds(seed, num_envs),
            mode,
            max_restarts=max_restarts,
            step_timeout=step_timeout,
            start_timeout=start_timeout,
        )
        try:
            for shard in self._shards.all:
                self._shards.start(shard)
            self._shards.wait_ready(self._shards.all)
            shard_spec = local_spec or ray.get(self._shards.all[0].actor.spec.remote(), timeout=start_timeout)
        except BaseException:
            self._release()
            raise
        pool = dataclasses.replace(shard_spec.pool, num_envs=num_envs, batch_size=self.batch_size)
        self.spec: TaskSpec = dataclasses.replace(shard_spec, pool=pool)
        self._shards.observation_space = self.spec.observation_space
        self.metadata: dict[str, Any] = {"render_modes": ["rgb_array"] if pool.render_mode else []}

    @property
    def restarts(self) -> int:
        return self._shards.restarts

    @property
    def shards(self) -> list[Shard]:
        """The shards (index, global env ids, incarnation, actor handle), in global id order."""
        return list(self._shards.all)

    def shard_info(self) -> list[dict[str, Any]]:
        """Per shard: its global env ids, incarnation, and where it runs (node id, pid, threads)."""
        self._check_open()
        shards = self._shards.all
        infos = ray.get([s.actor.ready.remote() for s in shards], timeout=self.start_timeout)
        return [
            {"shard": s.index, "env_ids": s.ids, "incarnation": s.incarnation, **info}
            for s, info in zip(shards, infos, strict=True)
        ]

    def describe(self) -> str:
        return f"shards={list(self.layout.sizes)}, on Ray"

    # ------------------------------------------------------------------ calls
    def reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]:
        """Sync mode resets the envs ``mask`` selects (the others report their current observation);
        async mode resets every env (or the whole shards the mask selects, which must be idle) and
        returns the first batch. Dead shards start again."""
        self._check_open()
        try:
            return self._reset(mask, seeds, dict(options or {}))
        finally:
            self._track_flight()

    def _reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        shards = self._shards
        ids = self.state.plan_reset(mask, receive=True)
        if mask is not None and not self._sync:
            self._reset_shards(masked_shards(shards.all, mask, "reset"), seeds, options)
            self.state.reset_queued(ids)
            obs, _, _, _, info = self._recv_batch(None)
            return obs, info
        shards.drain()
        self.state.settled(None)
        shards.start_dead(shards.all)
        targets = []
        for shard in shards.all:
            shard.pending = None
            lo, hi = shard.ids.start, shard.ids.stop
            local_mask = None if mask is None else mask[lo:hi]
            if local_mask is not None and not local_mask.any():
                continue
            local_options = slice_options(options, shard.ids, self.num_envs)
            if local_mask is not None and not local_mask.all():
                local_options["reset_mask"] = local_mask
            shards.submit(shard, "reset", self._local_seeds(seeds, shard), local_options or None)
            targets.append(shard)
        self.state.reset_queued(ids)
        if not self._sync:
            obs, _, _, _, info = self._recv_batch(None)
            return obs, info
        outputs = dict((s.index, out) for s, out in shards.remember(shards.collect(targets, len(targets))))
        self.state.settled(None)
        obs, _, _, _, info = self._concat([outputs[s.index] if s.index in outputs else _current(s) for s in shards.all])
        return obs, info

    def async_reset(self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None) -> None:
        """Reset every env without waiting. ``mask`` (async mode): only the shards it selects --
        whole shards, each idle (its last batch received, nothing sent since); the other shards'
        calls in flight carry on. Dead shards it selects start again."""
        self._check_open()
        if mask is not None and self._sync:
            raise ValueError(message("shard_sync_async_reset"))
        try:
            ids = self.state.plan_reset(mask, receive=False)
            if mask is not None:
                self._reset_shards(masked_shards(self._shards.all, mask, "async_reset"), seeds, dict(options or {}))
            else:
                self._shards.drain()
                self._reset_shards(self._shards.all, seeds, dict(options or {}))
            self.state.reset_queued(ids)
        finally:
            self._track_flight()

    def step(self, actions: Any, env_ids: Any, *, partial: bool = False) -> Step:
        """Sync: step every env. Async: ``send(actions, env_id)`` then ``recv()``."""
        self._check_open()
        if not self._sync:
            self.send(actions, env_ids)
            return self.recv(None)
        self.state.check_send(None if env_ids is None else np.asarray(env_ids))
        if env_ids is not None:  # every env, in some order: the actions in global id order
            order = np.argsort(env_ids)
            actions = [leaf[order] for leaf in actions] if isinstance(actions, list) else actions[order]
        shards = self._shards
        try:
            for shard in shards.all:
                if shard.dead is not None:
                    shards.submit(shard, "step")  # raises EnvError for the dead shard
            for shard in shards.all:
                shards.submit(shard, "step", self._actions_of(actions, np.arange(shard.ids.start, shard.ids.stop)))
            out = self._concat([out for _, out in shards.remember(shards.collect(shards.all, len(shards.all)))])
        except EnvError as error:
            self.state.failed(error.env_ids)
            raise
        finally:
            self._track_flight()
        self.state.received(None, out[2], out[3])
        return out

    def send(self, actions: Any, env_ids: Any, *, partial: bool = False) -> None:
        """Step the envs ``env_ids`` (global ids; default every env) of idle shards, without waiting.
        Every shard touched gets actions for all of its envs."""
        self._check_open()
        self.state.check_send(None if env_ids is None else np.asarray(env_ids))
        ids = np.arange(self.num_envs) if env_ids is None else np.asarray(env_ids, dtype=np.int64)
        size = self.layout.sizes[0]
        touched: dict[int, np.ndarray] = {}
        for k in np.unique(ids // size) if not self._sync else range(len(self._shards.all)):
            shard = self._shards.all[int(k)]
            rows = np.flatnonzero((ids >= shard.ids.start) & (ids < shard.ids.stop))
            local = ids[rows] - shard.ids.start
            if len(local) != len(shard.ids) or len(np.unique(local)) != len(local):
                raise ValueError(
                    message("shard_send_whole", shard=shard.index, first=shard.ids.start, last=shard.ids.stop - 1)
                )
            touched[shard.index] = rows[np.argsort(local)]
        try:
            for k, rows in touched.items():
                self._shards.submit(self._shards.all[k], "step", self._actions_of(actions, rows))
        finally:
            self._track_flight()

    def recv(self, timeout: float | None) -> Step:
        """The first ``batch_size`` envs (whole shards) to finish; ``TimeoutError`` after ``timeout`` s."""
        self._check_open()
        self.state.check_recv()
        return self._recv_batch(timeout)

    def render(self, env_ids: Any) -> Sequence[np.ndarray]:
        """Every env's frame in global id order, drawn in the shards. Only while no shard is stepping
        (sync mode between steps; async mode after a full recv)."""
        self._check_open()
        busy = [s.index for s in self._shards.all if s.call is not None or s.done or s.dead is not None]
        if busy:
            raise ValueError(message("shard_render_busy", shards=busy))
        frames = ray.get([s.actor.render.remote() for s in self._shards.all], timeout=self.start_timeout)
        return tuple(frame for shard_frames in frames for frame in shard_frames)

    def close(self) -> None:
        self._release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __del__(self) -> None:
        try:
            if not self._closed and ray.is_initialized():
                self._release()
        except Exception:  # interpreter shutdown: Ray may already be gone
            pass

    # ------------------------------------------------------------------ helpers
    def _recv_batch(self, timeout: float | None) -> Step:
        """The next batch (the call state said one can come: enough envs are in flight)."""
        shards = self._shards
        want = len(shards.all) if self._sync else self.batch_size // self.layout.sizes[0]
        busy = [s for s in shards.all if s.call is not None or s.done]
        try:
            outputs = shards.collect(busy, want, timeout)
            for shard, out in outputs[want:]:  # restarts can complete more shards than wanted: the next recv's
                shard.done.append(out)
        except EnvError as error:
            self.state.failed(error.env_ids)
            raise
        finally:
            self._track_flight()
        out = self._concat([out for _, out in shards.remember(outputs[:want])])
        self.state.received(out[4]["env_id"], out[2], out[3])
        return out

    def _track_flight(self) -> None:
        """What each env has in flight, as the shards say (see ``_in_flight``)."""
        for shard in self._shards.all:
            self.state.flight[shard.ids.start : shard.ids.stop] = _in_flight(shard)

    def _actions_of(self, actions: Any, rows: np.ndarray) -> Any:
        """The rows ``rows`` of checked actions (one array, or one per leaf), nested as the space."""
        if isinstance(actions, list):
            return nest(self.spec.action_space, [leaf[rows] for leaf in actions])
        return actions[rows]

    def _concat(self, outputs: Sequence[Step]) -> Step:
        obs = concatenate(self.spec.observation_space, [o[0] for o in outputs])
        rewards = np.concatenate([o[1] for o in outputs])
        terminated = np.concatenate([o[2] for o in outputs])
        truncated = np.concatenate([o[3] for o in outputs])
        info = merge_infos([(o[4], len(o[1])) for o in outputs])
        return obs, rewards, terminated, truncated, info

    def _reset_shards(self, shards: Sequence[Shard], seeds: dict[int, int], options: dict[str, Any]) -> None:
        """Send a reset to each of ``shards`` (idle ones; dead ones start again first)."""
        self._shards.start_dead(shards)
        for shard in shards:
            shard.pending = None
            local_options = slice_options(options, shard.ids, self.num_envs)
            self._shards.submit(shard, "reset", self._local_seeds(seeds, shard), local_options or None)

    @staticmethod
    def _local_seeds(seeds: dict[int, int], shard: Shard) -> list[int | None] | None:
        if not seeds:
            return None
        return [seeds.get(i) for i in shard.ids]

    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError("this RayVectorEnv is closed")

    def _release(self) -> None:
        self._closed = True
        if hasattr(self, "_shards"):
            self._shards.release()


def _current(shard: Shard) -> Step:
    """A shard's rows as they stand (its last output, without SAME_STEP's final columns)."""
    assert shard.last is not None
    obs, rewards, terminated, truncated, info = shard.last
    return obs, rewards, terminated, truncated, {k: v for k, v in info.items() if k not in FINAL_KEYS}


def _in_flight(shard: Shard) -> int:
    """What a shard's envs have in flight (``envhive.call_rules``: IDLE, STEP, RESET): its call (a
    reset; a step, or a restarted actor's first reset, reported as a step) or an output not yet
    received (a step's)."""
    if shard.call is not None:
        return RESET if shard.call.kind == "reset" else STEP
    return STEP if shard.done else IDLE


def merge_infos(parts: Sequence[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """Concatenate per-shard info dicts (``(info, rows)``) row-wise; a key some shards lack (SAME_STEP's
    ``final_obs`` appears only when an episode ended there) is filled with zeros / None / False."""
    keys: dict[str, Any] = {}
    for info, _ in parts:
        for key, value in info.items():
            keys.setdefault(key, value)
    out: dict[str, Any] = {}
    for key, template in keys.items():
        if isinstance(template, dict):
            out[key] = merge_infos([(info.get(key, {}), n) for info, n in parts])
            continue
        template = np.asarray(template)
        chunks = []
        for info, n in parts:
            if key in info:
                chunks.append(np.asarray(info[key]))
            elif template.dtype == object:
                chunks.append(np.full((n, *template.shape[1:]), None, dtype=object))
            else:
                chunks.append(np.zeros((n, *template.shape[1:]), dtype=template.dtype))
        out[key] = np.concatenate(chunks)
    return out


def slice_options(options: dict[str, Any], ids: range, num_envs: int) -> dict[str, Any]:
    """Task reset options for one shard: per-env arrays (first axis num_envs) cut to its rows."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        arr = np.asarray(value)
        out[name] = arr[ids.start : ids.stop] if arr.ndim >= 1 and arr.shape[0] == num_envs else value
    return out
