"""RayVectorEnv: a Gymnasium VectorEnv whose envs live in EnvShard actors on any Ray nodes.

Global env ids are contiguous per shard (``env_id = shard offset + local id``) and an int seed
``s`` gives env ``g`` the seed ``s + g``, so the trajectories are the same however the envs are
split (one local pool, or S shards on S nodes). Sync mode steps every shard at once (one Ray call
per shard, all in flight together). Async mode (``batch_size < num_envs``) is first-ready across
shards: each shard has at most one call in flight, ``recv`` returns the first
``batch_size / shard size`` shards to answer (``ray.wait``), and ``send(actions, info["env_id"])``
steps exactly those again -- the EnvPool loop.

Faults. A shard whose actor or node dies, or that does not answer within ``step_timeout``
seconds (it is killed), raises ``envhive.EnvError`` naming its global env ids; the call's batch is
lost and the dead shard is started afresh by the next ``reset()``. With ``max_restarts=n`` a shard
is instead restarted at once (up to ``n`` times over the env's life): the new actor's envs get fresh
per-incarnation seeds (``incarnation_seeds``), and the episodes the death cut are reported as
truncated -- the call returns, for those envs, their last observation with ``truncated=True`` and
reward 0 (SAME_STEP: the new episode's first observation, the old one in ``final_obs``); the next
step starts the new episodes as a NEXT_STEP autoreset does (actions ignored, reward 0).
An exception inside an env is the pool's ``EnvError`` with global ids; the shard stays usable.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
import ray
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envhive.checks import check_reset_mask
from envhive.errors import EnvError, PoolBusyError, PoolClosedError
from envhive.ray.shard import EnvShard, ShardLayout, incarnation_seeds, release_actors, resolve_global_seeds
from envhive.registry import DEFAULT_SEED, make_spec

Step = tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]
FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


@dataclass
class _Call:
    """A call in flight on one shard: ``kind`` is "step", "reset" or "restart" (the first reset of
    a restarted actor, which is that shard's next output, as a NEXT_STEP autoreset)."""

    ref: Any
    kind: str
    deadline: float | None
    order: int = 0  # when it was sent, in calls: ready shards are served oldest first


@dataclass
class _Shard:
    index: int
    ids: range
    actor: Any = None
    incarnation: int = 0
    call: _Call | None = None
    pending: Any = None  # a restarted actor's first reset, not yet handed out
    dead: str | None = None  # why, when the actor is gone and no restart is left
    last: Step | None = None  # its last output rows (filled into the rows a death cuts)
    done: list[Step] = field(default_factory=list)  # outputs ready without a call (after a restart)


class _ShardFailure(Exception):
    def __init__(self, shard: _Shard, why: str) -> None:
        super().__init__(why)
        self.shard = shard
        self.why = why


def _merge_infos(parts: Sequence[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """Concatenate per-shard info dicts (``(info, rows)``) row-wise; a key some shards lack (SAME_STEP's
    ``final_obs`` appears only when an episode ended there) is filled with zeros / None / False."""
    keys: dict[str, Any] = {}
    for info, _ in parts:
        for key, value in info.items():
            keys.setdefault(key, value)
    out: dict[str, Any] = {}
    for key, template in keys.items():
        if isinstance(template, dict):
            out[key] = _merge_infos([(info.get(key, {}), n) for info, n in parts])
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


def _concat(outputs: Sequence[Step]) -> Step:
    obs = np.concatenate([o[0] for o in outputs])
    rewards = np.concatenate([o[1] for o in outputs])
    terminated = np.concatenate([o[2] for o in outputs])
    truncated = np.concatenate([o[3] for o in outputs])
    info = _merge_infos([(o[4], len(o[1])) for o in outputs])
    return obs, rewards, terminated, truncated, info


def _slice_options(options: dict[str, Any], ids: range, num_envs: int) -> dict[str, Any]:
    """Task reset options for one shard: per-env arrays (first axis num_envs) cut to its rows."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        arr = np.asarray(value)
        out[name] = arr[ids.start : ids.stop] if arr.ndim >= 1 and arr.shape[0] == num_envs else value
    return out


class RayVectorEnv(VectorEnv):
    """``num_envs`` envs of ``task_id`` in ``num_shards`` EnvShard actors (see the module doc).

    ``num_cpus_per_shard`` is each actor's Ray CPU request and sizes its pool's threads;
    ``actor_options`` go to ``.options()`` of every shard actor (``resources``, ``scheduling_strategy``,
    ``runtime_env``, ...). ``step_timeout`` (seconds, None: wait) bounds every step of a shard;
    ``start_timeout`` bounds starting a shard (actor placement, pool construction, first reset).
    ``shard_class``: an ``EnvShard`` subclass to run instead (extra methods, instrumentation).
    Other kwargs are the task's and the pool's (``max_episode_steps``, ``autoreset_mode``, task options).
    """

    def __init__(
        self,
        task_id: str,
        num_envs: int,
        num_shards: int = 1,
        *,
        batch_size: int | None = None,
        seed: int | Sequence[int] | None = DEFAULT_SEED,
        num_cpus_per_shard: float = 1,
        actor_options: dict[str, Any] | None = None,
        max_restarts: int = 0,
        step_timeout: float | None = None,
        start_timeout: float = 300.0,
        shard_class: type[EnvShard] = EnvShard,
        **kwargs: Any,
    ) -> None:
        self._shards: list[_Shard] = []
        if not ray.is_initialized():
            raise RuntimeError("RayVectorEnv needs a running Ray: call ray.init() (or ray.init(address=...)) first")
        for name in ("num_threads", "thread_affinity_offset", "seed_offset"):
            if name in kwargs:
                raise ValueError(
                    f"{name} is not a RayVectorEnv kwarg: each shard sizes its pool from num_cpus_per_shard"
                )
        self.layout = ShardLayout.split(num_envs, num_shards)
        spec = make_spec(task_id, num_envs=num_envs, seed=None, **kwargs)
        self.task_spec = spec
        self.num_envs = num_envs
        self.batch_size = num_envs if not batch_size else int(batch_size)
        self._sync = self.batch_size == num_envs
        if not self._sync:
            size = self.layout.sizes[0]
            if len(set(self.layout.sizes)) != 1 or self.batch_size % size or not 0 < self.batch_size < num_envs:
                raise ValueError(
                    f"async RayVectorEnv returns whole shards: num_envs ({num_envs}) must split evenly over "
                    f"num_shards ({num_shards}) and batch_size ({batch_size}) must be a multiple of the shard size "
                    f"below num_envs"
                )
        if not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
        for name, value in (("step_timeout", step_timeout), ("start_timeout", start_timeout)):
            if value is not None and not (isinstance(value, int | float) and 0 < value < float("inf")):
                raise ValueError(f"{name} must be a positive finite number of seconds, got {value!r}")
        self.autoreset_mode = spec.pool.autoreset_mode
        self.render_mode = spec.pool.render_mode
        self.metadata = {
            "render_modes": ["rgb_array"] if self.render_mode else [],
            "autoreset_mode": self.autoreset_mode,
        }
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        self.observation_space = batch_space(spec.observation_space, self.batch_size)
        self.action_space = batch_space(spec.action_space, self.batch_size)
        self.max_restarts = max_restarts
        self.restarts = 0
        self.step_timeout = step_timeout
        self.start_timeout = start_timeout
        self._task_id = task_id
        self._kwargs = kwargs
        self._seeds = resolve_global_seeds(seed, num_envs)
        options = {"num_cpus": num_cpus_per_shard, "max_restarts": 0, "max_task_retries": 0, **(actor_options or {})}
        self._actor_class = ray.remote(shard_class).options(**options)
        self._closed = False
        self._sent = 0
        self._shards = [_Shard(k, self.layout.ids(k)) for k in range(num_shards)]
        try:
            for shard in self._shards:
                self._start(shard)
            self._wait_ready(self._shards)
        except BaseException:
            self._release()
            raise

    # ------------------------------------------------------------------ shards
    def _start(self, shard: _Shard) -> None:
        base = None if self._seeds is None else self._seeds[shard.ids.start : shard.ids.stop]
        shard.actor = self._actor_class.remote(
            self._task_id, len(shard.ids), incarnation_seeds(base, shard.incarnation), shard.ids.start, **self._kwargs
        )
        shard.dead = None
        shard.call = None
        shard.pending = None
        shard.done = []

    def _wait_ready(self, shards: Sequence[_Shard]) -> None:
        refs = [s.actor.ready.remote() for s in shards]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=self.start_timeout)
        failures: list[tuple[_Shard, str]] = []
        for shard, ref in zip(shards, refs, strict=True):
            if ref not in ready:
                failures.append(
                    (shard, f"did not start within start_timeout={self.start_timeout}s (no room on any node?)")
                )
                continue
            try:
                ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                raise e.cause if isinstance(e.cause, Exception) else e from None  # bad kwargs: the pool's own error
            except ray.exceptions.RayError as e:
                failures.append((shard, f"died while starting ({type(e).__name__})"))
        for shard, why in failures:
            self._kill(shard)
            shard.dead = why
            shard.actor = None
        if failures:
            ids = sorted(i for shard, _ in failures for i in shard.ids)
            raise EnvError(
                "; ".join(f"shard {s.index} (envs {s.ids.start}..{s.ids.stop - 1}) {why}" for s, why in failures),
                ids[0],
                ids,
            )

    def shard_info(self) -> list[dict[str, Any]]:
        """Per shard: its global env ids, incarnation, and where it runs (node id, pid, threads)."""
        self._check_open()
        infos = ray.get([s.actor.ready.remote() for s in self._shards], timeout=self.start_timeout)
        return [
            {"shard": s.index, "env_ids": s.ids, "incarnation": s.incarnation, **info}
            for s, info in zip(self._shards, infos, strict=True)
        ]

    def _kill(self, shard: _Shard) -> None:
        if shard.actor is not None:
            release_actors([shard.actor])  # dead, and its CPUs free, before any replacement starts
        shard.call = None
        shard.pending = None

    def _fail(self, shard: _Shard, why: str, kind: str) -> Step | None:
        """A shard died or hung in a ``kind`` call: restart it and return the rows of its cut
        episodes (a reset's: the new actor's reset), or mark it dead and return None."""
        self._kill(shard)
        if self.restarts >= self.max_restarts:
            shard.dead = why
            shard.actor = None
            return None
        self.restarts += 1
        shard.incarnation += 1
        self._start(shard)
        shard.pending = shard.actor.reset.remote()
        if kind == "reset":
            obs, info = self._get_one(shard, shard.pending, self.start_timeout)
            shard.pending = None
            n = len(shard.ids)
            return obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info
        return self._cut_rows(shard)

    def _cut_rows(self, shard: _Shard) -> Step:
        """What a call returns for a shard whose episodes a restart cut: truncated, reward 0."""
        n = len(shard.ids)
        if shard.last is None:
            raise EnvError(
                f"shard {shard.index} (envs {shard.ids.start}..{shard.ids.stop - 1}) died before its first reset",
                shard.ids.start,
                list(shard.ids),
            )
        obs, _, _, _, last_info = shard.last
        info = {k: v for k, v in last_info.items() if k not in FINAL_KEYS}
        rewards, terminated, truncated = np.zeros(n), np.zeros(n, bool), np.ones(n, bool)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            return obs, rewards, terminated, truncated, info
        new_obs, new_info = self._get_one(shard, shard.pending, self.start_timeout)
        shard.pending = None
        final_obs = np.empty(n, dtype=object)
        final_obs[:] = list(obs)
        final_info = {**{k: v for k, v in info.items()}, **{f"_{k}": np.ones(n, bool) for k in info}}
        merged = {**new_info, "final_obs": final_obs, "_final_obs": np.ones(n, bool)}
        merged.update({"final_info": final_info, "_final_info": np.ones(n, bool)})
        return new_obs, rewards, terminated, truncated, merged

    def _get_one(self, shard: _Shard, ref: Any, timeout: float | None) -> Any:
        ready, _ = ray.wait([ref], timeout=timeout)
        if not ready:
            raise _ShardFailure(shard, f"no answer within {timeout}s")
        try:
            return self._globalise(shard, ray.get(ref))
        except ray.exceptions.RayTaskError:
            raise
        except ray.exceptions.RayError as e:
            raise _ShardFailure(shard, f"its actor died ({type(e).__name__}: {str(e).splitlines()[0]})") from e

    def _globalise(self, shard: _Shard, out: Any) -> Any:
        """Local env ids in a shard's output -> global ids."""
        info = out[-1]
        info["env_id"] = np.asarray(info["env_id"]) + np.int32(shard.ids.start)
        if "final_info" in info and "env_id" in info["final_info"]:
            info["final_info"]["env_id"] = np.asarray(info["final_info"]["env_id"]) + np.int32(shard.ids.start)
        return out

    # ------------------------------------------------------------------ dispatch and collection
    def _submit(self, shard: _Shard, kind: str, *args: Any) -> None:
        if shard.dead is not None:
            raise EnvError(
                f"shard {shard.index} (envs {shard.ids.start}..{shard.ids.stop - 1}) is gone ({shard.dead}); "
                "call reset() to start it again",
                shard.ids.start,
                list(shard.ids),
            )
        if kind == "step" and shard.pending is not None:  # a restarted shard: its new episodes begin
            shard.call = _Call(shard.pending, "restart", self._deadline(self.start_timeout), self._next_order())
            shard.pending = None
            return
        ref = shard.actor.step.remote(*args) if kind == "step" else shard.actor.reset.remote(*args)
        timeout = self.step_timeout if kind == "step" else self.start_timeout
        shard.call = _Call(ref, kind, self._deadline(timeout), self._next_order())

    def _next_order(self) -> int:
        self._sent += 1
        return self._sent

    @staticmethod
    def _deadline(timeout: float | None) -> float | None:
        return None if timeout is None else time.monotonic() + timeout

    def _collect(self, shards: Sequence[_Shard], want: int, timeout: float | None = None) -> list[tuple[_Shard, Step]]:
        """Outputs of the first ``want`` of ``shards`` to finish their call (all of them in sync mode).
        Shards that died or passed their deadline are restarted or reported; an env's exception is
        raised as EnvError with global ids once every wanted shard has answered."""
        outputs: list[tuple[_Shard, Step]] = []
        env_errors: list[EnvError] = []
        lost: list[tuple[_Shard, str, str]] = []
        other: BaseException | None = None
        waiting = []
        for shard in shards:
            if shard.done:
                outputs.append((shard, shard.done.pop()))
            elif shard.call is not None:
                waiting.append(shard)
        # Oldest call first: ray.wait returns the first ready refs of its list, so when more shards
        # are ready than a batch takes, those that waited longest go first (none starves).
        waiting.sort(key=lambda s: s.call.order if s.call else 0)
        user_deadline = self._deadline(timeout)
        while len(outputs) + len(env_errors) + len(lost) < want and waiting:
            deadlines = [s.call.deadline for s in waiting if s.call and s.call.deadline is not None]
            if user_deadline is not None:
                deadlines.append(user_deadline)
            wait_s = None if not deadlines else max(0.0, min(deadlines) - time.monotonic())
            need = min(want - len(outputs) - len(env_errors) - len(lost), len(waiting))
            refs = [s.call.ref for s in waiting if s.call]
            ready, _ = ray.wait(refs, num_returns=need, timeout=wait_s)
            ready_set = set(ready)
            now = time.monotonic()
            for shard in list(waiting):
                call = shard.call
                assert call is not None
                if call.ref in ready_set:
                    waiting.remove(shard)
                    shard.call = None
                    try:
                        out = self._globalise(shard, ray.get(call.ref))
                    except ray.exceptions.RayTaskError as e:
                        cause = e.cause
                        if isinstance(cause, EnvError):
                            ids = [shard.ids.start + i for i in cause.env_ids]
                            env_errors.append(EnvError(self._shift_message(str(cause), shard), ids[0], ids))
                        else:
                            other = other or (cause if isinstance(cause, Exception) else e)
                        continue
                    except ray.exceptions.RayError as e:
                        lost.append((shard, f"its actor died ({type(e).__name__})", call.kind))
                        continue
                    if call.kind in ("restart", "reset"):  # (obs, info): a reset's rows, reward 0, no flags
                        obs, info = out
                        n = len(shard.ids)
                        out = (obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info)
                    outputs.append((shard, out))
                elif call.deadline is not None and now >= call.deadline:
                    waiting.remove(shard)
                    what = "step" if call.kind == "step" else "start/reset"
                    lost.append((shard, f"no answer to its {what} within its timeout (killed)", call.kind))
            if user_deadline is not None and now >= user_deadline and len(outputs) < want and not lost:
                if not env_errors and other is None:
                    for shard, out in outputs:  # nothing is consumed: hand them out on the next recv
                        shard.done.append(out)
                    raise TimeoutError(f"recv: fewer than {want} shards answered within {timeout}s")
                break
        for shard, why, kind in lost:
            while True:
                try:
                    cut = self._fail(shard, why, kind)
                    break
                except _ShardFailure as e:  # the restarted actor's first reset failed too
                    why = f"restarted, then {e.why}"
            if cut is not None:
                outputs.append((shard, cut))
        dead = [(s, why) for s, why, _ in lost if s.dead is not None]
        if other is not None:
            raise other
        if dead or env_errors:
            ids = sorted({i for s, _ in dead for i in s.ids} | {i for e in env_errors for i in e.env_ids})
            parts = [f"shard {s.index} (envs {s.ids.start}..{s.ids.stop - 1}) {why}" for s, why in dead]
            parts += [str(e) for e in env_errors]
            if dead:
                parts.append("dead shards start again on reset()")
            raise EnvError("; ".join(parts), ids[0], ids)
        return outputs

    @staticmethod
    def _shift_message(message: str, shard: _Shard) -> str:
        return f"shard {shard.index} (global ids = local + {shard.ids.start}): {message}"

    def _remember(self, outputs: list[tuple[_Shard, Step]]) -> list[tuple[_Shard, Step]]:
        outputs.sort(key=lambda pair: pair[0].index)
        for shard, out in outputs:
            shard.last = out
        return outputs

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset envs; ``seed`` int gives env ``g`` the seed ``seed + g``. Sync mode accepts
        ``options={"reset_mask": mask}`` (the others report their current observation) and the task's
        reset options; async mode resets every env (or, with a ``reset_mask``, the whole shards it
        selects, which must be idle, see :meth:`async_reset`) and returns the first batch. Dead shards
        start again."""
        self._check_open()
        seeds = self._reset_seeds(seed)
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is not None:
            mask = self._check_mask(mask)
            if not self._sync:
                chosen = self._masked_shards(mask, "reset")
                others = [s for s in self._shards if s not in chosen and (s.done or (s.call and s.call.kind == "step"))]
                if others:
                    raise ValueError(
                        f"reset(reset_mask) returns reset rows only, and shard(s) {[s.index for s in others]} have "
                        "steps in flight whose rewards it would drop: recv() them first, or call "
                        "async_reset(reset_mask=...) and recv()"
                    )
                resetting = len(chosen) + sum(1 for s in self._shards if s not in chosen and s.call is not None)
                want = self.batch_size // self.layout.sizes[0]
                if resetting < want:
                    raise ValueError(
                        f"reset(reset_mask) selects {len(chosen)} shard(s) and {resetting - len(chosen)} other(s) are "
                        f"resetting: a batch needs {want}; select more envs, or use async_reset(reset_mask=...)"
                    )
                self._reset_shards(chosen, seeds, options)
                obs, _, _, _, info = self._recv_batch(None)
                return obs, info
        self._drain()
        self._start_dead(self._shards)
        targets = []
        for shard in self._shards:
            shard.pending = None
            lo, hi = shard.ids.start, shard.ids.stop
            local_mask = None if mask is None else mask[lo:hi]
            if local_mask is not None and not local_mask.any():
                if shard.last is None:
                    raise ValueError("reset_mask leaves envs that were never reset: reset every env first")
                continue
            local_options = _slice_options(options, shard.ids, self.num_envs)
            if local_mask is not None and not local_mask.all():
                local_options["reset_mask"] = local_mask
            self._submit(shard, "reset", None if seeds is None else seeds[lo:hi], local_options or None)
            targets.append(shard)
        if not self._sync:
            obs, _, _, _, info = self._recv_batch(None)
            return obs, info
        outputs = dict((s.index, out) for s, out in self._remember(self._collect(targets, len(targets))))
        obs, _, _, _, info = _concat(
            [outputs[s.index] if s.index in outputs else self._current(s) for s in self._shards]
        )
        return obs, info

    def _current(self, shard: _Shard) -> Step:
        assert shard.last is not None
        obs, rewards, terminated, truncated, info = shard.last
        return obs, rewards, terminated, truncated, {k: v for k, v in info.items() if k not in FINAL_KEYS}

    def step(self, actions: Any, env_id: Any = None) -> Step:
        """Sync: step every env. Async: ``send(actions, env_id)`` then ``recv()``."""
        self._check_open()
        if not self._sync:
            self.send(actions, env_id)
            return self.recv()
        if env_id is not None:
            raise ValueError("a sync RayVectorEnv steps every env: drop env_id")
        actions = self._check_actions(actions, self.num_envs)
        if any(s.call is not None for s in self._shards):
            raise PoolBusyError("a call is still in flight")
        for shard in self._shards:
            if shard.dead is not None:
                self._submit(shard, "step")  # raises EnvError for the dead shard
        for shard in self._shards:
            self._submit(shard, "step", actions[shard.ids.start : shard.ids.stop])
        outputs = self._remember(self._collect(self._shards, len(self._shards)))
        return _concat([out for _, out in outputs])

    def render(self) -> tuple[np.ndarray, ...] | None:
        """Every env's frame in global id order (``render_mode="rgb_array"``), drawn in the shards.
        Only while no shard is stepping (sync mode between steps; async mode after a full recv)."""
        self._check_open()
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode (render_mode='rgb_array')"
            )
            return None
        busy = [s.index for s in self._shards if s.call is not None or s.done or s.dead is not None]
        if busy:
            raise ValueError(f"render: shard(s) {busy} are stepping or gone; render between steps")
        frames = ray.get([s.actor.render.remote() for s in self._shards], timeout=self.start_timeout)
        return tuple(frame for shard_frames in frames for frame in shard_frames)

    # ------------------------------------------------------------------ EnvPool API (async)
    def send(self, actions: Any, env_id: Any = None) -> None:
        """Step the envs ``env_id`` (global ids; default every env) of idle shards, without waiting.
        Every shard touched gets actions for all of its envs."""
        self._check_open()
        ids = np.arange(self.num_envs) if env_id is None else np.asarray(env_id, dtype=np.int64).reshape(-1)
        actions = self._check_actions(actions, len(ids))
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise ValueError(f"env_id must be in [0, {self.num_envs}), got {ids.min()}..{ids.max()}")
        size = self.layout.sizes[0]
        touched: dict[int, np.ndarray] = {}
        for k in np.unique(ids // size) if self._sync is False else range(len(self._shards)):
            shard = self._shards[int(k)]
            rows = np.flatnonzero((ids >= shard.ids.start) & (ids < shard.ids.stop))
            local = ids[rows] - shard.ids.start
            if len(local) != len(shard.ids) or len(np.unique(local)) != len(local):
                raise ValueError(
                    f"send: shard {shard.index} holds envs {shard.ids.start}..{shard.ids.stop - 1}; each call "
                    "gives actions to all of a shard's envs exactly once (send back the ids recv returned)"
                )
            if shard.call is not None or shard.done:
                raise PoolBusyError(f"send: shard {shard.index} (envs {shard.ids.start}..) is still stepping")
            touched[shard.index] = rows[np.argsort(local)]
        for k, rows in touched.items():
            self._submit(self._shards[k], "step", actions[rows])

    def recv(self, timeout: float | None = None) -> Step:
        """The first ``batch_size`` envs (whole shards) to finish; ``TimeoutError`` after ``timeout`` s."""
        self._check_open()
        return self._recv_batch(timeout)

    def _recv_batch(self, timeout: float | None) -> Step:
        want = len(self._shards) if self._sync else self.batch_size // self.layout.sizes[0]
        busy = [s for s in self._shards if s.call is not None or s.done]
        if len(busy) < want:
            raise ValueError(
                f"recv: {len(busy)} shard(s) stepping, a batch needs {want}: send actions for the ids recv returned"
            )
        outputs = self._collect(busy, want, timeout)
        for shard, out in outputs[want:]:  # restarts can complete more shards than wanted: the next recv's
            shard.done.append(out)
        return _concat([out for _, out in self._remember(outputs[:want])])

    def async_reset(self, seed: int | Sequence[int | None] | None = None, *, reset_mask: Any = None) -> None:
        """Reset every env without waiting; collect the batches with ``recv()``.

        ``reset_mask`` (async mode): reset only the shards it selects -- whole shards (a shard's envs
        move together, as in :meth:`send`), each idle (its last batch received, nothing sent since);
        the other shards' calls in flight carry on. Dead shards it selects start again."""
        self._check_open()
        seeds = self._reset_seeds(seed)
        if reset_mask is not None:
            if self._sync:
                raise ValueError("a sync RayVectorEnv resets a subset with reset(options={'reset_mask': mask})")
            self._reset_shards(self._masked_shards(self._check_mask(reset_mask), "async_reset"), seeds, {})
            return
        self._drain()
        self._reset_shards(self._shards, seeds, {})

    # ------------------------------------------------------------------ helpers
    def _masked_shards(self, mask: np.ndarray, what: str) -> list[_Shard]:
        """The shards an async ``reset_mask`` selects: whole shards, each idle."""
        chosen = []
        for shard in self._shards:
            local = mask[shard.ids.start : shard.ids.stop]
            if local.any() and not local.all():
                raise ValueError(
                    f"{what}: async RayVectorEnv resets whole shards; shard {shard.index} holds envs "
                    f"{shard.ids.start}..{shard.ids.stop - 1} and reset_mask selects only some of them"
                )
            if local.all():
                if shard.call is not None or shard.done:
                    raise ValueError(
                        f"{what}: shard {shard.index} (envs {shard.ids.start}..{shard.ids.stop - 1}) has a call in "
                        "flight or a batch not yet received; reset_mask may select only envs recv() returned"
                    )
                chosen.append(shard)
        return chosen

    def _reset_shards(self, shards: Sequence[_Shard], seeds: list[int | None] | None, options: dict[str, Any]) -> None:
        """Send a reset to each of ``shards`` (idle ones; dead ones start again first)."""
        self._start_dead(shards)
        for shard in shards:
            shard.pending = None
            lo, hi = shard.ids.start, shard.ids.stop
            local_options = _slice_options(options, shard.ids, self.num_envs)
            self._submit(shard, "reset", None if seeds is None else seeds[lo:hi], local_options or None)

    def _start_dead(self, shards: Sequence[_Shard]) -> None:
        """A new actor (next incarnation) for each dead one of ``shards``, once they are all up."""
        restarted = [s for s in shards if s.dead is not None]
        for shard in restarted:
            shard.incarnation += 1
            self._start(shard)
        if restarted:
            self._wait_ready(restarted)

    def _drain(self) -> None:
        """Wait out the calls in flight (their results are dropped); a shard that dies meanwhile is dead."""
        busy = [s for s in self._shards if s.call is not None]
        for shard in self._shards:
            shard.done = []
        if not busy:
            return
        timeout = None if self.step_timeout is None else max(self.step_timeout, 1.0)
        ready, _ = ray.wait([s.call.ref for s in busy if s.call], num_returns=len(busy), timeout=timeout)
        for shard in busy:
            call = shard.call
            shard.call = None
            if call is None:
                continue
            if call.ref not in ready:
                self._kill(shard)
                shard.dead = "it hung"
                continue
            try:
                ray.get(call.ref)
            except ray.exceptions.RayTaskError:
                pass  # an env's exception in a call whose result is dropped: the reset follows
            except ray.exceptions.RayError:
                shard.dead = "its actor died"
                shard.actor = None

    def _reset_seeds(self, seed: Any) -> list[int | None] | None:
        if seed is None:
            return None
        if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed sequence must have num_envs={self.num_envs} entries, got {len(seed)}")
            return [None if s is None else int(s) for s in seed]
        resolved = resolve_global_seeds(seed, self.num_envs)
        return None if resolved is None else list(resolved)

    def _check_mask(self, mask: Any) -> np.ndarray:
        return check_reset_mask(mask, self.num_envs)

    def _check_actions(self, actions: Any, rows: int) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.ndim == 0 or arr.shape[0] != rows:
            raise ValueError(f"expected actions for {rows} envs (first axis), got shape {arr.shape}")
        return arr

    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError("this RayVectorEnv is closed")

    def close_extras(self, **kwargs: Any) -> None:
        """Release every shard actor (a live one closes its pool first, within a few seconds);
        returns once Ray reports each one dead, so their CPUs are free for the next env."""
        self._release()

    def _release(self) -> None:
        self._closed = True
        shards, self._shards = self._shards, []
        closing = [s.actor.close.remote() for s in shards if s.actor is not None and s.dead is None]
        if closing:
            ray.wait(closing, num_returns=len(closing), timeout=5.0)
        release_actors([s.actor for s in shards if s.actor is not None])
        for shard in shards:
            shard.actor = None

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", True)

    @closed.setter
    def closed(self, value: bool) -> None:  # VectorEnv.close() assigns it; _closed is the truth
        pass

    def __repr__(self) -> str:
        mode = "sync" if self._sync else f"async, batch_size={self.batch_size}"
        return f"RayVectorEnv({self._task_id}, num_envs={self.num_envs}, shards={list(self.layout.sizes)}, {mode})"

    def __del__(self) -> None:
        try:
            if not self.closed and ray.is_initialized():
                self.close()
        except Exception:  # interpreter shutdown: Ray may already be gone
            pass
