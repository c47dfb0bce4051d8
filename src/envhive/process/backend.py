"""ProcessBackend: any Gymnasium env, in worker processes over shared memory, as a backend of the
one Gymnasium facade (``envhive.vector.HiveVectorEnv``).

Sync steps and resets cover every env; async steps and resets are per-env commands and ``recv``
takes the first ``batch_size`` ids to complete. What a call may do in the pool's state is
``envhive.call_rules.CallState``'s to say (the rules and messages every backend shares); this
module queues the work, waits for it and hands back the rows. The backend checks env ids and actions itself, with
the facade's checks (``envhive.checks``): its common sync step hands them to C++
(``envhive._procwire.SyncWire``: dtype, shape, ranges, finite values), and only what that path
declines goes through the Python checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envhive.backend import Capabilities, Step
from envhive.call_rules import CallState
from envhive.checks import ActionCheck, check_env_ids
from envhive.errors import EnvError
from envhive.process.pool import ProcessPool, WorkerDiedError
from envhive.process.protocol import OP_OPTIONS, OP_RESET, OP_SEEDED, OP_STEP
from envhive.process.rows import RowReader
from envhive.registry import TaskSpec


class ProcessBackend:
    """The envs of ``pool`` (a started :class:`ProcessPool`) for the resolved ``spec``."""

    capabilities = Capabilities(checks_calls=True)
    attributes = frozenset({"worker_pids", "num_workers", "start_method", "restart_workers", "env_name"})

    def __init__(self, spec: TaskSpec, pool: ProcessPool, env_name: str, restart_workers: bool) -> None:
        self.spec = spec
        self.pool = pool
        self.env_name = env_name
        self.restart_workers = restart_workers
        config = spec.pool
        self.num_envs, self.batch_size = config.num_envs, config.batch_size
        self.num_workers = config.num_threads
        self.start_method = pool.start_method
        self.metadata: dict[str, Any] = {
            "render_modes": list(pool.metadata.get("render_modes", [])),
            "render_fps": pool.metadata.get("render_fps"),
        }
        self.state = CallState(self.num_envs, self.batch_size, config.autoreset_mode)
        self._sync = self.state.sync
        self._rows = RowReader(pool, self.state.disabled)
        self._all_ids = self._rows.all_ids
        a = pool.arrays
        self._acts = [a[f"act{i}"] for i in range(len(pool.act_leaves))]
        self._seeds: np.ndarray | None = a["seeds"]
        self._check_actions = ActionCheck(pool.action_space)
        # The C++ sync step (envhive._procwire) serves sync pools of one action leaf, outside
        # DISABLED mode (whose "ended" rule the call state keeps).
        self._wire_ok = self._sync and self._check_actions.single and not self.state.disabled

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' pids (for monitoring; they change when a worker restarts)."""
        return self.pool.pids()

    def describe(self) -> str:
        return f"num_workers={self.num_workers}, start_method={self.start_method!r}"

    # ------------------------------------------------------------------ calls
    def reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]:
        pool = self.pool
        pool.enter()
        try:
            ids = self._start_reset(mask, seeds, options, receive=True)
            if not self._sync:
                obs, _, _, _, info = self._recv(None)
                return obs, info
            self._wait_all(None)
            obs, _, _, _, info = self._collect(self._all_ids, None if mask is None else ids)
            return obs, info
        finally:
            pool.leave()

    def async_reset(self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None) -> None:
        pool = self.pool
        pool.enter()
        try:
            self._start_reset(mask, seeds, options, receive=False)
        finally:
            pool.leave()

    def step(self, actions: Any, env_ids: Any, *, partial: bool = False) -> Step:
        pool = self.pool
        pool.enter()
        try:
            # The common sync step, in C++ (which also checks that nothing is in flight)
            wire = self._wire_ok and type(actions) is np.ndarray and env_ids is None
            if wire and self.state.all_reset and pool.broken is None and not pool.closing:
                flags = pool.wire_step(actions)
                if flags != -2:  # -2: not taken (another dtype or shape, a value out of range)
                    return self._wire_finish(flags)
            self._send(actions, env_ids)
            return self._recv(None)
        finally:
            pool.leave()

    def send(self, actions: Any, env_ids: Any, *, partial: bool = False) -> None:
        pool = self.pool
        pool.enter()
        try:
            self._send(actions, env_ids)
        finally:
            pool.leave()

    def recv(self, timeout: float | None) -> Step:
        pool = self.pool
        pool.enter()
        try:
            return self._recv(timeout)
        finally:
            pool.leave()

    def render(self, env_ids: Any) -> Sequence[np.ndarray]:
        """One frame per env (``render_mode`` was given to ``make``), after pending steps."""
        pool = self.pool
        pool.enter()
        try:
            pool.check_usable()
            frames = pool.control(("render",))
        finally:
            pool.leave()
        return tuple(frame for block in frames for frame in block)

    def close(self) -> None:
        self.pool.close(self._drop_views)

    @property
    def closed(self) -> bool:
        return self.pool.closed

    # ------------------------------------------------------------------ helpers
    def _start_reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None, receive: bool
    ) -> np.ndarray:
        """Queue the resets a reset of ``mask`` makes (after the call state's rules; a full reset and
        any reset of a sync pool drain what is in flight first); the env ids reset."""
        pool = self.pool
        pool.check_usable()
        ids = self.state.plan_reset(mask, receive)
        if mask is None or self._sync:
            pool.completions.discard_all()
            pool.check_usable()
            self.state.settled(None)
        self._queue_resets(ids, seeds, options)
        return ids

    def _wire_finish(self, flags: int) -> Step:
        """The rest of a sync step the C++ path queued and spun for: block in Python if the spin
        ran out (dead workers, closing and Ctrl-C are handled there), collect."""
        if flags < 0:
            self._wait_all(None, spin=False)
            flags = self.pool.commands.flags()
        return self._collect(self._all_ids, flags=flags)

    def _send(self, actions: Any, env_id: Any) -> None:
        pool = self.pool
        pool.check_usable()
        ids = check_env_ids(env_id, self.num_envs)
        if ids is not None and self._sync and len(ids) == self.num_envs and np.array_equal(ids, self._all_ids):
            ids = None  # every env, in order: the sync step
        self.state.check_send(ids)
        values = self._check_actions(actions, self.num_envs if ids is None else len(ids), ids)
        for arr, value in zip(self._acts, values, strict=True):
            if ids is None:
                arr[...] = value
            else:
                arr[ids] = value
        if self._sync:  # every env (in some order): one command per worker
            pool.commands.queue_block_steps()
        elif ids is None:
            pool.commands.queue_all(OP_STEP)
        else:
            pool.commands.queue(ids, OP_STEP)
        self.state.sent(ids)

    def _recv(self, timeout: float | None) -> Step:
        pool = self.pool
        pool.check_usable()
        self.state.check_recv()
        if self._sync:
            self._wait_all(timeout)
            return self._collect(self._all_ids)
        try:
            ids = pool.completions.wait_any(self.batch_size, timeout)
        except WorkerDiedError as error:
            self._after_death(error)
            raise
        return self._collect(ids)

    def _wait_all(self, timeout: float | None, spin: bool = True) -> None:
        """Every queued command of a sync call completed (a dead worker: the others' envs did)."""
        try:
            self.pool.completions.wait_all(timeout, spin=spin)
        except WorkerDiedError as error:
            self.state.settled(None)
            self._after_death(error)
            raise

    def _collect(self, ids: np.ndarray, info_ids: np.ndarray | None = None, flags: int | None = None) -> Step:
        """The rows of ``ids`` (``_all_ids``: every env), which are no longer in flight."""
        every = ids is self._all_ids
        try:
            out = self._rows.collect(ids, info_ids, flags)
        except EnvError as error:  # the batch is lost; the failed envs start anew (DISABLED: after a reset)
            self.state.settled(None if every else ids)
            self.state.failed(error.env_ids)
            raise
        self.state.received(None if every else ids, out[2], out[3])
        return out

    def _after_death(self, error: WorkerDiedError) -> None:
        state = self.state
        ids = np.asarray(error.env_ids)
        was_in_flight = state.flight[ids] != 0
        state.settled(ids)
        if not error.restarted:
            return
        state.failed(ids)  # new envs: they start a new episode on their next step (DISABLED: after a reset)
        if not self._sync and was_in_flight.any():  # bring them back: a reset row each
            back = ids[was_in_flight]
            state.reset_queued(back)
            self.pool.commands.queue(back, OP_RESET)

    def _queue_resets(self, ids: np.ndarray, seeds: dict[int, int], options: dict[str, Any] | None) -> None:
        ops = np.full(len(ids), OP_RESET, dtype=np.int64)
        for k, i in enumerate(ids.tolist()):
            if i in seeds:
                self._seeds[i] = seeds[i]  # type: ignore[index]
                ops[k] |= OP_SEEDED
        if options is not None:
            ops |= OP_OPTIONS
            per_worker: dict[int, dict[int, Any]] = {}
            for i in ids.tolist():
                per_worker.setdefault(int(self.pool.worker_of[i]), {})[i] = options
            self.pool.send_options(per_worker)
        self.state.reset_queued(ids)
        self.pool.commands.queue(np.asarray(ids, dtype=np.int64), ops)

    def _drop_views(self) -> None:
        """Drop this backend's views of the arena (the pool calls it when no call is in flight)."""
        self._acts = []
        self._seeds = None
        self._rows.drop_views()
