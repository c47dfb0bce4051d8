"""ProcessBackend: any Gymnasium env, in worker processes over shared memory, as a backend of the
one Gymnasium facade (``envhive.vector.HiveVectorEnv``).

Sync steps and resets cover every env; async steps and resets are per-env commands and ``recv``
takes the first ``batch_size`` ids to complete. The backend checks env ids and actions itself, with
the facade's checks (``envhive.checks``): its common sync step hands them to C++
(``envhive._procwire.SyncWire``: dtype, shape, ranges, finite values), and only what that path
declines goes through the Python checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envhive.backend import Capabilities, Step
from envhive.checks import ActionCheck, check_env_ids
from envhive.errors import ResetNeeded
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
        mode = config.autoreset_mode
        self._sync = not config.is_async
        self._disabled = mode == AutoresetMode.DISABLED
        self._in_flight = np.zeros(self.num_envs, dtype=bool)
        self._ended = np.zeros(self.num_envs, dtype=bool)  # DISABLED: stepping needs a reset first
        self._never_reset = np.ones(self.num_envs, dtype=bool)  # stepping raises ResetNeeded
        self._all_reset = False
        self._all_ids = np.arange(self.num_envs, dtype=np.int32)
        self._rows = RowReader(pool, mode == AutoresetMode.SAME_STEP, self._disabled, self._ended)
        self._all_ids = self._rows.all_ids
        a = pool.arrays
        self._acts = [a[f"act{i}"] for i in range(len(pool.act_leaves))]
        self._seeds: np.ndarray | None = a["seeds"]
        self._check_actions = ActionCheck(pool.action_space)
        # The C++ sync step (envhive._procwire) serves sync pools of one action leaf, outside
        # DISABLED mode (whose "ended" check stays in Python).
        self._wire_ok = self._sync and self._check_actions.single and not self._disabled

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
            pool.check_usable()
            if mask is None:
                pool.completions.discard_all()
                pool.check_usable()
                self._in_flight[:] = False
                ids = np.arange(self.num_envs)
            else:
                if self._sync and not self._all_reset and (self._never_reset & ~mask).any():
                    env = int(np.flatnonzero(self._never_reset & ~mask)[0])
                    raise ResetNeeded(
                        f"env {env} has not been reset: a partial reset of a sync pool reports every env, so reset "
                        "all envs first (reset() without a reset_mask)"
                    )
                busy = (
                    np.arange(self.num_envs)
                    if self._sync and pool.pending()
                    else np.flatnonzero(mask & self._in_flight)
                )
                if len(busy):
                    raise ValueError(f"cannot reset env {busy[0]}: it is in flight; recv() it first")
                ids = np.flatnonzero(mask)
            self._queue_resets(ids, seeds, options)
            if not self._sync:
                obs, _, _, _, info = self._recv(None)
                return obs, info
            try:
                pool.completions.wait_all()
            except WorkerDiedError as error:
                self._in_flight[:] = False
                self._after_death(error)
                raise
            self._in_flight[ids] = False
            obs, _, _, _, info = self._rows.collect(self._all_ids, None if mask is None else ids)
            return obs, info
        finally:
            pool.leave()

    def async_reset(self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None) -> None:
        pool = self.pool
        pool.enter()
        try:
            pool.check_usable()
            if mask is None:
                pool.completions.discard_all()
                pool.check_usable()
                self._in_flight[:] = False
                ids = np.arange(self.num_envs)
            else:
                if self._sync and pool.pending():
                    raise ValueError("cannot reset: a sync step is in flight; recv() it first")
                busy = np.flatnonzero(mask & self._in_flight)
                if len(busy):
                    raise ValueError(f"cannot reset env {busy[0]}: it is in flight; recv() it first")
                ids = np.flatnonzero(mask)
            self._queue_resets(ids, seeds, options)
        finally:
            pool.leave()

    def step(self, actions: Any, env_ids: Any, *, partial: bool = False) -> Step:
        pool = self.pool
        pool.enter()
        try:
            # The common sync step, in C++ (which also checks that nothing is in flight)
            wire = self._wire_ok and type(actions) is np.ndarray and env_ids is None
            if wire and self._all_reset and pool.broken is None and not pool.closing:
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
    def _wire_finish(self, flags: int) -> Step:
        """The rest of a sync step the C++ path queued and spun for: block in Python if the spin
        ran out (dead workers, closing and Ctrl-C are handled there), collect."""
        pool = self.pool
        if flags < 0:
            try:
                pool.completions.wait_all(None, spin=False)
            except WorkerDiedError as error:  # the other workers' envs completed before the error was raised
                self._in_flight[:] = False
                self._after_death(error)
                raise
            flags = pool.commands.flags()
        return self._rows.collect(self._all_ids, flags=flags)

    def _send(self, actions: Any, env_id: Any) -> None:
        pool = self.pool
        pool.check_usable()
        ids = check_env_ids(env_id, self.num_envs)
        if ids is not None and self._sync and len(ids) == self.num_envs and np.array_equal(ids, self._all_ids):
            ids = None  # every env, in order: the sync step
        if ids is None and self._sync:  # the sync step: every env, one command per worker
            if pool.pending():
                raise ValueError("env 0 is not awaiting an action: it is in flight (recv first)")
            self._check_steppable(None)
            self._write_actions(self._check_actions(actions, self.num_envs, None), None)
            pool.commands.queue_block_steps()
            return
        n = self.num_envs if ids is None else len(ids)
        if self._sync and n != self.num_envs:
            raise ValueError(
                f"sync mode (batch_size == num_envs) steps all {self.num_envs} envs together; got env_id for {n}. "
                "Use batch_size < num_envs for async stepping"
            )
        values = self._check_actions(actions, n, ids)
        if ids is None:
            if self._in_flight.any():
                first = int(np.flatnonzero(self._in_flight)[0])
                raise ValueError(f"env {first} is not awaiting an action: it is in flight (recv first)")
            self._check_steppable(None)
            self._write_actions(values, None)
            self._in_flight[:] = True
            pool.commands.queue_all(OP_STEP)
            return
        busy = self._in_flight[ids] if not self._sync else np.full(len(ids), pool.pending() > 0)
        if busy.any():
            raise ValueError(f"env {int(ids[np.flatnonzero(busy)[0]])} is not awaiting an action: it is in flight")
        self._check_steppable(ids)
        self._write_actions(values, ids)
        if self._sync:  # every env, in some order
            pool.commands.queue_block_steps()
            return
        self._in_flight[ids] = True
        pool.commands.queue(ids, OP_STEP)

    def _write_actions(self, values: list[np.ndarray], ids: np.ndarray | None) -> None:
        for arr, value in zip(self._acts, values, strict=True):
            if ids is None:
                arr[...] = value
            else:
                arr[ids] = value

    def _check_steppable(self, ids: np.ndarray | None) -> None:
        """ResetNeeded for an env never reset (as the native pool and Gymnasium refuse); DISABLED:
        ValueError for an env whose episode ended."""
        if not self._all_reset:
            never = self._never_reset if ids is None else self._never_reset[ids]
            if never.any():
                env = int(np.flatnonzero(never)[0]) if ids is None else int(ids[np.flatnonzero(never)[0]])
                raise ResetNeeded(
                    f"env {env} has not been reset: call reset() (or async_reset() and recv()) before stepping it"
                )
        if self._disabled:
            ended = self._ended if ids is None else self._ended[ids]
            if ended.any():
                env = int(np.flatnonzero(ended)[0]) if ids is None else int(ids[np.flatnonzero(ended)[0]])
                raise ValueError(
                    f"env {env} has ended its episode and autoreset_mode is 'disabled': reset it first with "
                    "reset(options={'reset_mask': mask})"
                )

    def _recv(self, timeout: float | None) -> Step:
        pool = self.pool
        pool.check_usable()
        pending = pool.pending()
        if pending < self.batch_size:
            raise ValueError(
                f"recv() would wait forever: {pending} env(s) in flight, batch_size is {self.batch_size}; send() "
                "actions (or async_reset()) first"
            )
        try:
            if self._sync:
                pool.completions.wait_all(timeout)
                ids = self._all_ids
            else:
                ids = pool.completions.wait_any(self.batch_size, timeout)
        except WorkerDiedError as error:
            if self._sync:  # the other workers' envs completed before the error was raised
                self._in_flight[:] = False
            self._after_death(error)
            raise
        if not self._sync:
            self._in_flight[ids] = False
        return self._rows.collect(ids)

    def _after_death(self, error: WorkerDiedError) -> None:
        ids = np.asarray(error.env_ids)
        was_in_flight = self._in_flight[ids].copy()
        self._in_flight[ids] = False
        if not error.restarted:
            return
        self._ended[ids] = self._disabled
        if not self._sync and was_in_flight.any():  # bring them back: a reset row each
            back = ids[was_in_flight]
            self._in_flight[back] = True
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
        self._ended[ids] = False
        if not self._all_reset:
            self._never_reset[ids] = False
            self._all_reset = not self._never_reset.any()
        self._in_flight[ids] = True
        self.pool.commands.queue(np.asarray(ids, dtype=np.int64), ops)

    def _drop_views(self) -> None:
        """Drop this backend's views of the arena (the pool calls it when no call is in flight)."""
        self._acts = []
        self._seeds = None
        self._rows.drop_views()
