"""Shards: the EnvShard actors of one RayBackend, their calls in flight, and their faults.

Global env ids are contiguous per shard (``env_id = shard offset + local id``). Each shard has at
most one call in flight. ``collect`` waits for the first shards to answer (all of them in sync
mode) and turns what went wrong into envhive's errors: an env's exception is the shard pool's
``EnvError`` with global ids; a shard whose actor or node dies, or that does not answer within its
timeout (it is killed), is restarted with fresh per-incarnation seeds while restarts are left --
the episodes it cut are reported as truncated -- or else marked dead (``EnvError`` naming its ids;
``reset()`` starts it again). Steps are never retried: replaying a step on a fresh env is wrong.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
import ray
from gymnasium.vector import AutoresetMode

from envhive.backend import Step
from envhive.call_rules import failure_message, message
from envhive.checks import seed_list
from envhive.errors import EnvError
from envhive.leaves import rows
from envhive.ray.shard import ShardLayout, incarnation_seeds, release_actors

FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


@dataclass
class Call:
    """A call in flight on one shard: ``kind`` is "step", "reset" or "restart" (the first reset of
    a restarted actor, which is that shard's next output, as a NEXT_STEP autoreset)."""

    ref: Any
    kind: str
    deadline: float | None
    order: int = 0  # when it was sent, in calls: ready shards are served oldest first


@dataclass
class Shard:
    index: int
    ids: range
    actor: Any = None
    incarnation: int = 0
    call: Call | None = None
    pending: Any = None  # a restarted actor's first reset, not yet handed out
    dead: str | None = None  # why, when the actor is gone and no restart is left
    last: Step | None = None  # its last output rows (filled into the rows a death cuts)
    done: list[Step] = field(default_factory=list)  # outputs ready without a call (after a restart)

    def describe(self) -> str:
        return f"shard {self.index} (envs {self.ids.start}..{self.ids.stop - 1})"


class ShardFailure(Exception):
    def __init__(self, shard: Shard, why: str) -> None:
        super().__init__(why)
        self.shard = shard
        self.why = why


class Shards:
    """The shard actors of ``actor_class`` over ``layout``; see the module doc."""

    def __init__(
        self,
        layout: ShardLayout,
        actor_class: Any,
        start_args: tuple[Any, ...],
        kwargs: dict[str, Any],
        seeds: dict[int, int],
        autoreset_mode: AutoresetMode,
        *,
        max_restarts: int,
        step_timeout: float | None,
        start_timeout: float,
    ) -> None:
        self.layout = layout
        self.observation_space: gymnasium.Space[Any] | None = None  # the backend sets it once known
        self.actor_class = actor_class
        self.start_args = start_args
        self.kwargs = kwargs
        self.seeds = seeds
        self.autoreset_mode = autoreset_mode
        self.max_restarts = max_restarts
        self.restarts = 0
        self.step_timeout = step_timeout
        self.start_timeout = start_timeout
        self.sent = 0
        self.all: list[Shard] = [Shard(k, layout.ids(k)) for k in range(len(layout.sizes))]

    # ------------------------------------------------------------------ actors
    def start(self, shard: Shard) -> None:
        base = seed_list(self.seeds, shard.ids) if self.seeds else None
        shard.actor = self.actor_class.remote(
            *self.start_args, len(shard.ids), incarnation_seeds(base, shard.incarnation), shard.ids.start, **self.kwargs
        )
        shard.dead = None
        shard.call = None
        shard.pending = None
        shard.done = []

    def wait_ready(self, shards: Sequence[Shard]) -> None:
        refs = [s.actor.ready.remote() for s in shards]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=self.start_timeout)
        failures: list[tuple[Shard, str]] = []
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
            self.kill(shard)
            shard.dead = why
            shard.actor = None
        if failures:
            ids = sorted(i for shard, _ in failures for i in shard.ids)
            raise EnvError("; ".join(f"{s.describe()} {why}" for s, why in failures), ids[0], ids)

    def start_dead(self, shards: Sequence[Shard]) -> None:
        """A new actor (next incarnation) for each dead one of ``shards``, once they are all up."""
        restarted = [s for s in shards if s.dead is not None]
        for shard in restarted:
            shard.incarnation += 1
            self.start(shard)
        if restarted:
            self.wait_ready(restarted)

    def kill(self, shard: Shard) -> None:
        if shard.actor is not None:
            release_actors([shard.actor])  # dead, and its CPUs free, before any replacement starts
        shard.call = None
        shard.pending = None

    def release(self) -> None:
        """Release every shard actor (a live one closes its pool first, within a few seconds);
        returns once Ray reports each one dead, so their CPUs are free for the next env."""
        shards, self.all = self.all, []
        closing = [s.actor.close.remote() for s in shards if s.actor is not None and s.dead is None]
        if closing:
            ray.wait(closing, num_returns=len(closing), timeout=5.0)
        release_actors([s.actor for s in shards if s.actor is not None])
        for shard in shards:
            shard.actor = None

    # ------------------------------------------------------------------ calls
    def submit(self, shard: Shard, kind: str, *args: Any) -> None:
        if shard.dead is not None:
            raise EnvError(
                f"{shard.describe()} is gone ({shard.dead}); call reset() to start it again",
                shard.ids.start,
                list(shard.ids),
            )
        if kind == "step" and shard.pending is not None:  # a restarted shard: its new episodes begin
            shard.call = Call(shard.pending, "restart", _deadline(self.start_timeout), self._next_order())
            shard.pending = None
            return
        ref = shard.actor.step.remote(*args) if kind == "step" else shard.actor.reset.remote(*args)
        timeout = self.step_timeout if kind == "step" else self.start_timeout
        shard.call = Call(ref, kind, _deadline(timeout), self._next_order())

    def _next_order(self) -> int:
        self.sent += 1
        return self.sent

    def collect(self, shards: Sequence[Shard], want: int, timeout: float | None = None) -> list[tuple[Shard, Step]]:
        """Outputs of the first ``want`` of ``shards`` to finish their call (all of them in sync mode).
        Shards that died or passed their deadline are restarted or reported; an env's exception is
        raised as EnvError with global ids once every wanted shard has answered."""
        outputs: list[tuple[Shard, Step]] = []
        env_errors: list[EnvError] = []
        lost: list[tuple[Shard, str, str]] = []
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
        user_deadline = _deadline(timeout)
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
                        out = self.globalise(shard, ray.get(call.ref))
                    except ray.exceptions.RayTaskError as e:
                        cause = e.cause
                        if isinstance(cause, EnvError):  # the shard pool's: local ids
                            ids = [shard.ids.start + i for i in cause.env_ids]
                            env_errors.append(EnvError(str(cause), ids[0], ids, cause.error))
                        else:
                            other = other or (cause if isinstance(cause, Exception) else e)
                        continue
                    except ray.exceptions.RayError as e:
                        lost.append((shard, f"its actor died ({type(e).__name__})", call.kind))
                        continue
                    if call.kind in ("restart", "reset"):  # (obs, info): a reset's rows, reward 0, no flags
                        obs, info = out
                        out = (obs, *_quiet_rows(len(shard.ids)), info)
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
                except ShardFailure as e:  # the restarted actor's first reset failed too
                    why = f"restarted, then {e.why}"
            if cut is not None:
                outputs.append((shard, cut))
        dead = [(s, why) for s, why, _ in lost if s.dead is not None]
        if other is not None:
            raise other
        if dead or env_errors:
            parts = []
            failed = sorted(i for e in env_errors for i in e.env_ids)
            if env_errors:  # the envs' errors as a pool's own, in global ids
                first = min(env_errors, key=lambda e: e.env_id)
                disabled = self.autoreset_mode == AutoresetMode.DISABLED
                parts.append(failure_message(failed, first.error, disabled))
            parts += [f"{s.describe()} {why}" for s, why in dead]
            if dead:
                parts.append("dead shards start again on reset()")
            ids = sorted({i for s, _ in dead for i in s.ids} | set(failed))
            raise EnvError(
                "; ".join(parts), failed[0] if failed else ids[0], ids, env_errors[0].error if env_errors else None
            )
        return outputs

    def remember(self, outputs: list[tuple[Shard, Step]]) -> list[tuple[Shard, Step]]:
        outputs.sort(key=lambda pair: pair[0].index)
        for shard, out in outputs:
            shard.last = out
        return outputs

    def get_one(self, shard: Shard, ref: Any, timeout: float | None) -> Any:
        ready, _ = ray.wait([ref], timeout=timeout)
        if not ready:
            raise ShardFailure(shard, f"no answer within {timeout}s")
        try:
            return self.globalise(shard, ray.get(ref))
        except ray.exceptions.RayTaskError:
            raise
        except ray.exceptions.RayError as e:
            raise ShardFailure(shard, f"its actor died ({type(e).__name__}: {str(e).splitlines()[0]})") from e

    @staticmethod
    def globalise(shard: Shard, out: Any) -> Any:
        """Local env ids in a shard's output -> global ids."""
        info = out[-1]
        info["env_id"] = np.asarray(info["env_id"]) + np.int32(shard.ids.start)
        if "final_info" in info and "env_id" in info["final_info"]:
            info["final_info"]["env_id"] = np.asarray(info["final_info"]["env_id"]) + np.int32(shard.ids.start)
        return out

    def drain(self) -> None:
        """Wait out the calls in flight (their results are dropped); a shard that dies meanwhile is dead."""
        busy = [s for s in self.all if s.call is not None]
        for shard in self.all:
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
                self.kill(shard)
                shard.dead = "it hung"
                continue
            try:
                ray.get(call.ref)
            except ray.exceptions.RayTaskError:
                pass  # an env's exception in a call whose result is dropped: the reset follows
            except ray.exceptions.RayError:
                shard.dead = "its actor died"
                shard.actor = None

    # ------------------------------------------------------------------ faults
    def _fail(self, shard: Shard, why: str, kind: str) -> Step | None:
        """A shard died or hung in a ``kind`` call: restart it and return the rows of its cut
        episodes (a reset's: the new actor's reset), or mark it dead and return None."""
        self.kill(shard)
        if self.restarts >= self.max_restarts:
            shard.dead = why
            shard.actor = None
            return None
        self.restarts += 1
        shard.incarnation += 1
        self.start(shard)
        shard.pending = shard.actor.reset.remote()
        if kind == "reset":
            obs, info = self.get_one(shard, shard.pending, self.start_timeout)
            shard.pending = None
            return obs, *_quiet_rows(len(shard.ids)), info
        return self._cut_rows(shard)

    def _cut_rows(self, shard: Shard) -> Step:
        """What a call returns for a shard whose episodes a restart cut: truncated, reward 0."""
        n = len(shard.ids)
        if shard.last is None:
            raise EnvError(f"{shard.describe()} died before its first reset", shard.ids.start, list(shard.ids))
        obs, _, _, _, last_info = shard.last
        info = {k: v for k, v in last_info.items() if k not in FINAL_KEYS}
        rewards, terminated, truncated = np.zeros(n), np.zeros(n, bool), np.ones(n, bool)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            return obs, rewards, terminated, truncated, info
        new_obs, new_info = self.get_one(shard, shard.pending, self.start_timeout)
        shard.pending = None
        final_obs = np.empty(n, dtype=object)
        assert self.observation_space is not None
        final_obs[:] = rows(self.observation_space, obs, n)
        final_info = {**info, **{f"_{k}": np.ones(n, bool) for k in info}}
        merged = {**new_info, "final_obs": final_obs, "_final_obs": np.ones(n, bool)}
        merged.update({"final_info": final_info, "_final_info": np.ones(n, bool)})
        return new_obs, rewards, terminated, truncated, merged


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _quiet_rows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reward 0 and both flags False for ``n`` rows (what a reset reports)."""
    return np.zeros(n), np.zeros(n, bool), np.zeros(n, bool)


def masked_shards(shards: Sequence[Shard], mask: np.ndarray, what: str) -> list[Shard]:
    """The shards an async ``reset_mask`` selects: whole shards (the call state has checked that
    none of their envs is in flight)."""
    chosen = []
    for shard in shards:
        local = mask[shard.ids.start : shard.ids.stop]
        if local.any() and not local.all():
            raise ValueError(
                message(
                    "shard_partial_mask", call=what, shard=shard.index, first=shard.ids.start, last=shard.ids.stop - 1
                )
            )
        if local.all():
            chosen.append(shard)
    return chosen
