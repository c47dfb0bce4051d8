"""The worker process: builds a contiguous block of envs, then steps whatever the parent queues.

Started by ``envhive.process.pool``. It ignores SIGINT (Ctrl-C belongs to the trainer, which
closes the pool), asks the kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``, where
the parent is the pool's owner) and watches the owner's pidfd whenever it blocks, so it never
outlives the trainer. Autoreset happens here, per env, so a batch never waits on a second round
trip for resets.

Two paths. A sync step is one ``STEP_BLOCK`` command: the worker steps its whole block in one
Python loop that only calls the envs and appends to lists, then writes each output array with one
copy (``np.stack`` into the arena, as Gymnasium's ``concatenate`` batches), publishes one
completion count and wakes the parent at most once. Async steps and resets are per-env commands,
each published as it completes (first-N-ready needs every env as soon as it is done).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle
from typing import Any

import numpy as np

import envhive._procwire as _procwire
from envhive.process.arena import LINE_WORDS, Arena, Layout, Leaf, getter, leaves, nest
from envhive.process.factory import Shipped
from envhive.process.infos import PICKLED, InfoWriter
from envhive.process.protocol import (
    CLOSE,
    FLAG_ERROR,
    FLAG_FINAL,
    FLAG_INFO,
    OP_BITS,
    OP_OPTIONS,
    OP_RESET,
    OP_SEEDED,
    OP_STEP,
    STATUS_ERROR,
    STATUS_OK,
    STEP_BLOCK,
)
from envhive.process.waiting import (
    SKIP_WAKEUPS,
    EventFd,
    Spinner,
    block,
    die_with_parent,
    fence,
    owner_watch,
)

NEXT_STEP, SAME_STEP, DISABLED = 0, 1, 2
OWNER_POLL_S = 1.0  # how often a worker without a pidfd checks that its owner lives
BAD_OBS = (ValueError, TypeError, KeyError, IndexError)


@dataclass(frozen=True)
class WorkerArgs:
    """What a worker process is started with (pickled under forkserver and spawn)."""

    index: int
    lo: int
    hi: int
    factory: Shipped
    owner_pid: int
    kill_with_parent: bool
    pending_seeds: dict[int, int]
    cpu: int | None = None  # the core to pin this worker to (thread_affinity_offset), or None


@dataclass(frozen=True)
class Settings:
    """Sent with the arena once the parent has seen every worker's spaces."""

    autoreset: int
    spin_s: float
    info_bytes: int


def main(args: WorkerArgs, conn: Connection) -> None:
    """Process entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if args.kill_with_parent:
        die_with_parent()
        if os.getppid() != args.owner_pid:  # the owner died before prctl took effect
            return
    if args.cpu is not None:
        with contextlib.suppress(OSError):  # a core taken away since (cgroups): run unpinned
            os.sched_setaffinity(0, {args.cpu})
    watch = owner_watch(args.owner_pid)
    if watch is None:
        return
    try:
        factory = args.factory.load()
    except Exception:  # noqa: BLE001 - reported to the parent
        conn.send(("fatal", args.lo, "could not unpickle the env factory:\n" + traceback.format_exc()))
        return
    envs: list[Any] = []
    for env_id in range(args.lo, args.hi):
        try:
            envs.append(factory.build(checked=not envs))
        except Exception:  # noqa: BLE001 - reported to the parent
            conn.send(("fatal", env_id, traceback.format_exc()))
            for env in envs:
                _close_quietly(env)
            return
    first = envs[0]
    conn.send(
        (
            "spaces",
            first.observation_space,
            first.action_space,
            dict(getattr(first, "metadata", {}) or {}),
            getattr(first, "render_mode", None),
        )
    )
    try:
        message = conn.recv()
    except EOFError:
        message = ("close",)
    if message[0] != "arena":
        for env in envs:
            _close_quietly(env)
        return
    layout, settings = message[1], message[2]
    fds = [recv_handle(conn) for _ in range(3)]
    Worker(args, settings, layout, fds, envs, conn, watch).run()


def _close_quietly(env: Any) -> None:
    with contextlib.suppress(Exception):  # closing on the way out; nothing to report to
        env.close()


def _bad_obs(space: Any, error: Exception) -> ValueError:
    return ValueError(f"the observation does not fit the observation space {space}: {error}")


class Worker:
    def __init__(
        self,
        args: WorkerArgs,
        settings: Settings,
        layout: Layout,
        fds: list[int],
        envs: list[Any],
        conn: Connection,
        watch: int,
    ) -> None:
        self.args = args
        self.settings = settings
        self.envs = envs
        self.conn = conn
        self.watch = watch
        self.lo, self.hi = args.lo, args.hi
        arena_fd, cmd_fd, done_fd = fds
        self.arena = Arena(layout, arena_fd)
        self.commands = EventFd(cmd_fd)
        a = self.arena.arrays
        self.a = a
        w = args.index
        self.cmd_head = self.arena.words("cmd_head")
        self.batch_flags = self.arena.words("batch_flags")
        self.num_workers = len(a["done_head"]) // LINE_WORDS
        self.sleeping = self.arena.words("worker_sleeping")
        self.head_at = w * LINE_WORDS
        self.command_spin = _procwire.CommandSpin(a["cmd_head"], self.head_at)
        # Publishing a completion count (and the parent's wake-up): the Dekker protocol of waiting.py
        self.publisher = _procwire.Publisher(
            a["done_head"], a["parent_waiting"], a["want_total"], done_fd, w, self.num_workers, LINE_WORDS, SKIP_WAKEUPS
        )
        capacity = a["cmd_ring"].shape[1]
        self.cmd_ring = self.arena.words("cmd_ring")[w * capacity : (w + 1) * capacity]
        self.done_ring = self.arena.words("done_ring")[w * capacity : (w + 1) * capacity]
        self.capacity = capacity
        self.rewards = self.arena.words("reward", "d")
        self.terminated = self.arena.words("terminated", "B")
        self.truncated = self.arena.words("truncated", "B")
        self.elapsed_out = self.arena.words("elapsed", "i")
        self.status = self.arena.words("status", "b")
        self.info_kind = self.arena.words("info_kind", "i")
        self.seeds = a["seeds"]
        self.mode = settings.autoreset
        first = envs[0]
        obs_leaves = leaves(first.observation_space, "observation", objects=True)
        act_leaves = leaves(first.action_space, "action")
        self.obs_space = first.observation_space
        self.flat_obs = len(obs_leaves) == 1 and not obs_leaves[0].path and not obs_leaves[0].is_object
        self.write_obs = self._writer("obs", obs_leaves)
        self.write_final: Callable[[int, Any], None] | None = None
        if self.mode == SAME_STEP:
            self.write_final = self._writer("final_obs", obs_leaves)
            self.has_final = self.arena.words("has_final", "B")
            self.final_elapsed = self.arena.words("final_elapsed", "i")
            self.final_kind = self.arena.words("final_info_kind", "i")
        act_arrays = [a[f"act{i}"] for i in range(len(act_leaves))]
        self.read_action = self._reader(first.action_space, act_arrays, act_leaves)
        self.read_block = self._block_reader(first.action_space, act_arrays, act_leaves)
        areas = [a["info"], a["final_info"]] if self.mode == SAME_STEP else [a["info"]]
        self.infos = InfoWriter(w, areas, settings.info_bytes, self._announce)
        n = args.hi - args.lo
        self.n = n
        self.elapsed = [0] * n
        self.ended = [True] * n  # never reset yet (the parent refuses to step such an env)
        self.pending_seeds = dict(args.pending_seeds)
        self.options: dict[int, Any] = {}
        self.tail = 0
        self.finished = 0
        self.spinner = Spinner(settings.spin_s, self.num_workers + 1)  # when waits for a command spin
        # Block outputs: one list per array, reused every sync step.
        self.obs_out: list[Any] = [None] * n
        self.rew_out = [0.0] * n
        self.term_out = [False] * n
        self.trunc_out = [False] * n
        self.kind_out = [0] * n
        self.final_out = [0] * n
        self.kinds_dirty = True  # the block's info kinds may be non-zero: rewrite them next step
        self.finals_dirty = True
        self.obs_block = a["obs0"][self.lo : self.hi] if self.flat_obs else None
        self.zero_obs = None if self.obs_block is None else np.zeros(self.obs_block.shape[1:], self.obs_block.dtype)
        self.obs_shape = None if self.obs_block is None else tuple(self.obs_block.shape[1:])
        # Array observations of a fixed shape: the block as rows of their first axis, so that
        # np.concatenate writes every env's observation with one call (np.stack costs 3x more).
        self.obs_concat = None
        if self.obs_block is not None and self.obs_block.ndim >= 2:
            self.obs_concat = self.obs_block.view()  # setting .shape reshapes a view, never a copy
            self.obs_concat.shape = (self.n * self.obs_block.shape[1], *self.obs_block.shape[2:])
        self.rew_block = a["reward"][self.lo : self.hi]
        self.term_block = a["terminated"][self.lo : self.hi].view(np.bool_)
        self.trunc_block = a["truncated"][self.lo : self.hi].view(np.bool_)
        self.elapsed_block = a["elapsed"][self.lo : self.hi]
        self.kind_block = a["info_kind"][self.lo : self.hi]
        self.final_block = a["has_final"][self.lo : self.hi] if self.mode == SAME_STEP else None
        # rewards, flags and elapsed steps in one C++ call where they are plain Python values
        self.scalar_writer = _procwire.BlockWriter(
            self.rew_block, a["terminated"][self.lo : self.hi], a["truncated"][self.lo : self.hi], self.elapsed_block
        )

    # ------------------------------------------------------------------ arena access
    def _announce(self, code: int, fields: Any) -> None:
        self.conn.send(("layout", code, fields))

    def _writer(self, prefix: str, obs_leaves: list[Leaf]) -> Callable[[int, Any], None]:
        """A function writing one env's observation into the arena regions ``prefix<i>``."""
        a = self.arena.arrays
        if len(obs_leaves) == 1 and not obs_leaves[0].path and not obs_leaves[0].is_object:
            out = a[f"{prefix}0"]

            def write_one(env_id: int, obs: Any) -> None:
                out[env_id] = obs

            return write_one
        parts: list[tuple[Callable[[Any], Any], Callable[[int, Any], None]]] = []
        for i, leaf in enumerate(obs_leaves):
            name = f"{prefix}{i}"
            if leaf.is_object:
                parts.append((getter(leaf.path), self._object_writer(name, a[name], a[f"{name}_len"])))
            else:
                parts.append((getter(leaf.path), _row_writer(a[name])))

        def write_nested(env_id: int, obs: Any) -> None:
            for get, put in parts:
                put(env_id, get(obs))

        return write_nested

    def _object_writer(self, name: str, data: np.ndarray, lengths: np.ndarray) -> Callable[[int, Any], None]:
        """Pickle into the env's byte slot; a value that does not fit goes through the pipe."""
        room = data.shape[1]
        conn = self.conn

        def put(env_id: int, value: Any) -> None:
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            if len(blob) <= room:
                data[env_id, : len(blob)] = np.frombuffer(blob, dtype=np.uint8)
                lengths[env_id] = len(blob)
            else:
                lengths[env_id] = -1
                conn.send(("object", env_id, name, value))

        return put

    def _reader(self, space: Any, arrays: list[np.ndarray], act_leaves: list[Leaf]) -> Callable[[int], Any]:
        """One env's action, as Gymnasium's ``iterate`` gives it (numpy scalars, row copies)."""

        def one(arr: np.ndarray, leaf: Leaf) -> Callable[[int], Any]:
            if leaf.shape:
                return lambda env_id: arr[env_id].copy()
            return lambda env_id: arr[env_id]  # a numpy scalar, as iterating a batch gives

        readers = [one(arr, leaf) for arr, leaf in zip(arrays, act_leaves, strict=True)]
        if len(readers) == 1 and not act_leaves[0].path:
            return readers[0]
        return lambda env_id: nest(space, [r(env_id) for r in readers])

    def _block_reader(self, space: Any, arrays: list[np.ndarray], act_leaves: list[Leaf]) -> Callable[[], list[Any]]:
        """Every action of the block, one numpy operation per leaf (rows of a fresh copy)."""
        lo, hi = self.lo, self.hi
        if len(arrays) == 1 and not act_leaves[0].path:
            block = arrays[0][lo:hi]
            if act_leaves[0].shape:
                return lambda: list(block.copy())
            return lambda: list(block)
        blocks = [arr[lo:hi] for arr in arrays]

        def nested() -> list[Any]:
            columns = [list(b.copy()) if leaf.shape else list(b) for b, leaf in zip(blocks, act_leaves, strict=True)]
            return [nest(space, values) for values in zip(*columns, strict=True)]

        return nested

    # ------------------------------------------------------------------ main loop
    def run(self) -> None:
        cmd_head, head_at, ring, capacity = self.cmd_head, self.head_at, self.cmd_ring, self.capacity
        op_mask = (1 << OP_BITS) - 1
        run_one, publish = self._run, self.publisher.publish
        try:
            while True:
                if cmd_head[head_at] == self.tail and not self._wait():
                    return
                while self.tail != cmd_head[head_at]:
                    entry = ring[self.tail % capacity]
                    self.tail += 1
                    if entry == STEP_BLOCK:
                        self._step_block()
                        self.finished += self.n
                        # The parent may share this core, spinning for this block: give it the
                        # core now, not after the Python of the next wait.
                        publish(self.finished, True)
                    elif entry < 0:
                        if entry == CLOSE or not self._control():
                            return
                    else:
                        env_id = entry >> OP_BITS
                        run_one(env_id, entry & op_mask)
                        self.done_ring[self.finished % capacity] = env_id
                        self.finished += 1
                        publish(self.finished, False)
        finally:
            for env in self.envs:
                _close_quietly(env)

    def _wait(self) -> bool:
        """Spin for the next command, then block; False when the owner is gone.

        The spin lasts at most ``spin_us``, yields the core on every round (the trainer, when it
        shares this core, runs first), and happens only while commands have lately come back
        within it (a running mean of the idle gaps): a trainer that thinks for milliseconds
        between steps finds its workers blocked, not burning the cores it needs."""
        cmd_head, head_at, tail = self.cmd_head, self.head_at, self.tail
        start = time.perf_counter()
        spinner = self.spinner
        spin = spinner.window(start)
        if spin > 0 and self.command_spin.spin(tail, spin):
            spinner.record(time.perf_counter() - start)
            return True
        fds = [self.commands.fd] if self.watch < 0 else [self.commands.fd, self.watch]
        sleeping = self.sleeping
        sleeping[head_at] = 1
        fence()  # the flag is visible before we look at the queue once more
        try:
            while cmd_head[head_at] == tail:
                ready = block(fds, OWNER_POLL_S if self.watch < 0 else None)
                if self.watch in ready or (self.watch < 0 and os.getppid() != self.args.owner_pid):
                    return False
                self.commands.drain()
        finally:
            sleeping[head_at] = 0
        spinner.record(time.perf_counter() - start)
        return True

    def _message(self) -> Any:
        """The next pipe message that is not reset options (those are kept for their resets)."""
        while True:
            message = self.conn.recv()
            if message[0] != "options":
                return message
            self.options.update(message[1])

    def _control(self) -> bool:
        """Answer one control message (render); False if the pipe is gone."""
        try:
            message = self._message()
        except (EOFError, OSError):
            return False
        kind = message[0]
        try:
            if kind == "render":
                value: Any = [env.render() for env in self.envs]
            else:
                raise ValueError(f"unknown control message {kind!r}")
        except Exception:  # noqa: BLE001 - reported to the parent
            self.conn.send(("failed", traceback.format_exc()))
        else:
            self.conn.send(("reply", value))
        return True

    # ------------------------------------------------------------------ a sync step: the whole block
    def _step_block(self) -> None:
        """Step every env of the block (autoreset included), then write each output with one copy."""
        envs, lo, mode = self.envs, self.lo, self.mode
        actions = self.read_block()
        elapsed, ended = self.elapsed, self.ended
        obs_out, rew_out, term_out, trunc_out = self.obs_out, self.rew_out, self.term_out, self.trunc_out
        kind_out, final_out = self.kind_out, self.final_out
        flat = self.flat_obs
        write_obs = self.write_obs
        write_rows = _procwire.write_rows
        ndarray, shape = np.ndarray, self.obs_shape
        odd = False  # an observation that is not an array of the space's shape (concatenate would not check it)
        infos = 0
        finals = 0
        failed: list[tuple[int, BaseException]] = []
        for i in range(self.n):
            try:
                if ended[i]:  # NEXT_STEP's reset step, or the first step after a failure
                    obs, info = envs[i].reset(seed=self.pending_seeds.pop(lo + i, None))
                    reward, terminated, truncated = 0.0, False, False
                    elapsed[i] = 0
                    ended[i] = False
                else:
                    obs, reward, terminated, truncated, info = envs[i].step(actions[i])
                    elapsed[i] += 1
                    if terminated or truncated:
                        if mode == SAME_STEP:
                            self._write_final(lo + i, obs, info, elapsed[i])
                            finals += 1
                            final_out[i] = 1
                            obs, info = envs[i].reset(seed=self.pending_seeds.pop(lo + i, None))
                            elapsed[i] = 0
                        else:
                            ended[i] = True
                if flat:
                    obs_out[i] = obs
                    if obs.__class__ is not ndarray or obs.shape != shape:
                        odd = True
                else:
                    try:
                        write_obs(lo + i, obs)
                    except BAD_OBS as error:
                        raise _bad_obs(self.obs_space, error) from error
                rew_out[i] = reward
                term_out[i] = terminated
                trunc_out[i] = truncated
                if info:
                    infos += 1
                    kind = self.infos.write(0, lo + i, info)
                    if kind == PICKLED:
                        self.conn.send(("info", lo + i, 0, info))
                    kind_out[i] = kind
            except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
                failed.append((i, error))
                self._fail_row(i, error)
        if flat:
            assert self.obs_block is not None
            try:
                if not odd and write_rows(obs_out, self.obs_block):  # numpy arrays of the row's dtype: memcpy
                    pass
                elif not odd and self.obs_concat is not None:  # one C-level copy of every row
                    np.concatenate(obs_out, out=self.obs_concat)
                else:  # scalars, or an odd one: exactly as Gymnasium's concatenate batches them
                    np.stack(obs_out, out=self.obs_block)
            except BAD_OBS:  # find the env whose observation does not fit
                for i, obs in enumerate(obs_out):
                    try:
                        self.obs_block[i] = obs
                    except BAD_OBS as error:
                        failed.append((i, error))
                        self._fail_row(i, _bad_obs(self.obs_space, error))
        if not self.scalar_writer.write(rew_out, term_out, trunc_out, elapsed):  # not all plain values
            try:
                self.rew_block[:] = rew_out
            except (TypeError, ValueError) as error:  # a reward that is not a number
                for i, reward in enumerate(rew_out):
                    try:
                        self.rew_block[i] = reward
                    except (TypeError, ValueError):
                        failed.append((i, error))
                        self._fail_row(i, TypeError(f"the reward {reward!r} is not a number"))
            self.term_block[:] = term_out
            self.trunc_block[:] = trunc_out
            self.elapsed_block[:] = elapsed
        flags = 0
        if infos or self.kinds_dirty:
            self.kind_block[:] = kind_out
            if infos:
                flags |= FLAG_INFO
                for i in range(self.n):
                    kind_out[i] = 0
            self.kinds_dirty = bool(infos)
        if self.final_block is not None and (finals or self.finals_dirty):
            self.final_block[:] = final_out
            if finals:
                flags |= FLAG_FINAL
                for i in range(self.n):
                    final_out[i] = 0
            self.finals_dirty = bool(finals)
        if failed:
            flags |= FLAG_ERROR
            for i, _ in failed:
                self.status[lo + i] = STATUS_ERROR
                if self.obs_block is not None:
                    self.obs_block[i] = 0
                self.rew_block[i] = 0.0
                self.term_block[i] = False
                self.trunc_block[i] = False
        if flags:
            self.batch_flags[self.head_at] |= flags

    def _fail_row(self, i: int, error: BaseException) -> None:
        """Env ``lo + i`` failed: report it; it starts a new episode on its next step."""
        self.ended[i] = True
        self.elapsed[i] = 0
        if self.obs_block is not None:
            self.obs_out[i] = self.zero_obs
        self.rew_out[i] = 0.0
        self.term_out[i] = False
        self.trunc_out[i] = False
        self.kind_out[i] = 0
        self.final_out[i] = 0
        text = f"{type(error).__name__}: {error}\n" + "".join(
            traceback.format_exception(type(error), error, error.__traceback__)
        )
        self.conn.send(("error", self.lo + i, text))

    # ------------------------------------------------------------------ one env (async steps, resets)
    def _run(self, env_id: int, op: int) -> None:
        i = env_id - self.lo
        env = self.envs[i]
        final = False
        try:
            if op == OP_STEP and not self.ended[i]:  # the common case first
                obs, reward, terminated, truncated, info = env.step(self.read_action(env_id))
                elapsed = self.elapsed[i] + 1
                if terminated or truncated:
                    if self.mode == SAME_STEP:
                        final = True
                        self._write_final(env_id, obs, info, elapsed)
                        obs, info = env.reset(seed=self.pending_seeds.pop(env_id, None))
                        elapsed = 0
                    else:
                        self.ended[i] = True
                self.elapsed[i] = elapsed
            else:
                obs, info = self._reset(env_id, env, op)
                reward, terminated, truncated = 0.0, False, False
                self.elapsed[i] = 0
                self.ended[i] = False
            try:
                self.write_obs(env_id, obs)
            except BAD_OBS as error:
                raise _bad_obs(self.obs_space, error) from error
            self.rewards[env_id] = float(reward)
            self.terminated[env_id] = 1 if terminated else 0
            self.truncated[env_id] = 1 if truncated else 0
            self.elapsed_out[env_id] = self.elapsed[i]
            if info:
                kind = self.infos.write(0, env_id, info)
                if kind == PICKLED:
                    self.conn.send(("info", env_id, 0, info))
                self.info_kind[env_id] = kind
                self.batch_flags[self.head_at] |= FLAG_INFO
            else:
                self.info_kind[env_id] = 0
            if self.write_final is not None and not final:
                self.has_final[env_id] = 0
            self.status[env_id] = STATUS_OK
            if final:
                self.batch_flags[self.head_at] |= FLAG_FINAL
        except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
            self.ended[i] = True  # the env starts a new episode on its next step
            self.elapsed[i] = 0
            text = f"{type(error).__name__}: {error}\n" + traceback.format_exc()
            self.conn.send(("error", env_id, text))
            self.status[env_id] = STATUS_ERROR
            self.batch_flags[self.head_at] |= FLAG_ERROR
        # A later sync step rewrites the block's kinds and final flags (they were written per env).
        self.kinds_dirty = self.finals_dirty = True

    def _reset(self, env_id: int, env: Any, op: int) -> tuple[Any, dict[str, Any]]:
        """A reset the parent asked for (``OP_RESET``: seed, options), or an autoreset (NEXT_STEP's
        reset step, or the first step after a failure or a restart)."""
        if not op & OP_RESET:
            return env.reset(seed=self.pending_seeds.pop(env_id, None))
        seed = self.pending_seeds.pop(env_id, None)
        if op & OP_SEEDED:
            seed = int(self.seeds[env_id])
        options = None
        if op & OP_OPTIONS:
            while env_id not in self.options:
                self._message_options()
            options = self.options.pop(env_id)
        return env.reset(seed=seed, options=options)

    def _message_options(self) -> None:
        message = self.conn.recv()
        if message[0] != "options":  # the parent sends options before the resets that use them
            raise RuntimeError(f"expected reset options, got a {message[0]!r} message")
        self.options.update(message[1])

    def _write_final(self, env_id: int, obs: Any, info: dict[str, Any], elapsed: int) -> None:
        assert self.write_final is not None
        try:
            self.write_final(env_id, obs)
        except BAD_OBS as error:
            raise _bad_obs(self.obs_space, error) from error
        kind = self.infos.write(1, env_id, info)
        if kind == PICKLED:
            self.conn.send(("info", env_id, 1, info))
        self.final_kind[env_id] = kind
        self.final_elapsed[env_id] = elapsed
        self.has_final[env_id] = 1


def _row_writer(out: np.ndarray) -> Callable[[int, Any], None]:
    def put(env_id: int, value: Any) -> None:
        out[env_id] = value

    return put
