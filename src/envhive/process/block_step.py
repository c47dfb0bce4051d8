"""A sync step: every env of a worker's block in one ``STEP_BLOCK`` command.

The worker steps its whole block in one Python loop that only calls the envs and appends to lists,
then writes each output array with one copy (``np.stack`` into the arena, as Gymnasium's
``concatenate`` batches), publishes one completion count and wakes the parent at most once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import envhive._procwire as _procwire
from envhive.process.env_step import Episodes
from envhive.process.protocol import FLAG_ERROR, FLAG_FINAL, FLAG_INFO, STATUS_ERROR
from envhive.process.worker_pipe import ParentPipe
from envhive.process.worker_rows import BAD_OBS, WorkerRows, bad_obs, check_obs_row


class BlockStep:
    def __init__(self, episodes: Episodes, rows: WorkerRows, pipe: ParentPipe) -> None:
        self.episodes = episodes
        self.rows = rows
        self.pipe = pipe
        n = rows.n
        self.n = n
        # Block outputs: one list per array, reused every sync step.
        self.obs_out: list[Any] = [None] * n
        self.rew_out = [0.0] * n
        self.term_out = [False] * n
        self.trunc_out = [False] * n
        self.kind_out = [0] * n
        self.final_out = [0] * n
        obs_block = rows.obs_block
        self.zero_obs = None if obs_block is None else np.zeros(obs_block.shape[1:], obs_block.dtype)
        self.obs_shape = None if obs_block is None else tuple(obs_block.shape[1:])
        # Array observations of a fixed shape: the block as rows of their first axis, so that
        # np.concatenate writes every env's observation with one call (np.stack costs 3x more).
        self.obs_concat = None
        if obs_block is not None and obs_block.ndim >= 2:
            self.obs_concat = obs_block.view()  # setting .shape reshapes a view, never a copy
            self.obs_concat.shape = (n * obs_block.shape[1], *obs_block.shape[2:])

    def step(self) -> None:
        """Step every env of the block (``Episodes.step``: autoreset included), then write each
        output with one copy."""
        episodes, rows = self.episodes, self.rows
        lo, advance = episodes.lo, episodes.step
        actions = rows.read_block()
        obs_out, rew_out, term_out, trunc_out = self.obs_out, self.rew_out, self.term_out, self.trunc_out
        kind_out, final_out = self.kind_out, self.final_out
        flat = rows.flat_obs
        write_obs = rows.write_obs
        ndarray, shape = np.ndarray, self.obs_shape
        odd = False  # an observation that is not an array of the space's shape (concatenate would not check it)
        infos = 0
        finals = 0
        failed: list[tuple[int, BaseException]] = []
        for i in range(self.n):
            try:
                obs, reward, terminated, truncated, info, final = advance(i, actions[i])
                if final:
                    finals += 1
                    final_out[i] = 1
                if flat:
                    obs_out[i] = obs
                    if obs.__class__ is not ndarray or obs.shape != shape:
                        odd = True
                else:
                    try:
                        write_obs(lo + i, obs)
                    except BAD_OBS as error:
                        raise bad_obs(rows.obs_space, error) from error
                rew_out[i] = reward
                term_out[i] = terminated
                trunc_out[i] = truncated
                if info:
                    infos += 1
                    kind_out[i] = rows.write_info(0, lo + i, info)
            except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
                failed.append((i, error))
                self._fail_row(i, error)
        if flat:
            self._write_obs(failed, odd)
        self._write_scalars(failed)
        self._finish(failed, infos, finals)

    def _write_obs(self, failed: list[tuple[int, BaseException]], odd: bool) -> None:
        """The block's observations into the arena with one copy (plain arrays of one shape)."""
        obs_block, obs_out = self.rows.obs_block, self.obs_out
        assert obs_block is not None
        try:
            if not odd and _procwire.write_rows(obs_out, obs_block):  # numpy arrays of the row's dtype: memcpy
                pass
            elif not odd and self.obs_concat is not None:  # one C-level copy of every row
                np.concatenate(obs_out, out=self.obs_concat)
            else:  # scalars, or an odd one: exactly as Gymnasium's concatenate batches them
                np.stack(obs_out, out=obs_block)
        except Exception:  # noqa: BLE001 - find the env whose observation does not fit (whatever it is)
            for i, obs in enumerate(obs_out):
                try:
                    check_obs_row(obs, obs_block.shape[1:])
                    obs_block[i] = obs
                except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
                    failed.append((i, error))
                    self._fail_row(i, bad_obs(self.rows.obs_space, error))

    def _write_scalars(self, failed: list[tuple[int, BaseException]]) -> None:
        """Rewards, flags and elapsed steps: one C++ call when they are plain values, else numpy."""
        rows = self.rows
        if rows.scalar_writer.write(self.rew_out, self.term_out, self.trunc_out, self.episodes.elapsed):
            return
        try:
            rows.rew_block[:] = self.rew_out
        except (TypeError, ValueError) as error:  # a reward that is not a number
            for i, reward in enumerate(self.rew_out):
                try:
                    rows.rew_block[i] = reward
                except (TypeError, ValueError):
                    failed.append((i, error))
                    self._fail_row(i, TypeError(f"the reward {reward!r} is not a number"))
        rows.term_block[:] = self.term_out
        rows.trunc_block[:] = self.trunc_out
        rows.elapsed_block[:] = self.episodes.elapsed

    def _finish(self, failed: list[tuple[int, BaseException]], infos: int, finals: int) -> None:
        """Info kinds and final flags (rewritten only when this or an earlier step set some), the
        failed rows zeroed, and the batch flags that tell the parent what to read."""
        rows = self.rows
        flags = 0
        if infos or rows.kinds_dirty:
            rows.kind_block[:] = self.kind_out
            if infos:
                flags |= FLAG_INFO
                _zero(self.kind_out)
            rows.kinds_dirty = bool(infos)
        if rows.final_block is not None and (finals or rows.finals_dirty):
            rows.final_block[:] = self.final_out
            if finals:
                flags |= FLAG_FINAL
                _zero(self.final_out)
            rows.finals_dirty = bool(finals)
        if failed:
            flags |= FLAG_ERROR
            for i, _ in failed:
                rows.status[rows.lo + i] = STATUS_ERROR
                if rows.obs_block is not None:
                    rows.obs_block[i] = 0
                rows.rew_block[i] = 0.0
                rows.term_block[i] = False
                rows.trunc_block[i] = False
        if flags:
            rows.flag(flags)

    def _fail_row(self, i: int, error: BaseException) -> None:
        """Env ``lo + i`` failed: report it; it starts a new episode on its next step."""
        self.episodes.fail(i)
        if self.rows.obs_block is not None:
            self.obs_out[i] = self.zero_obs
        self.rew_out[i] = 0.0
        self.term_out[i] = False
        self.trunc_out[i] = False
        self.kind_out[i] = 0
        self.final_out[i] = 0
        self.pipe.error(self.rows.lo + i, error)


def _zero(values: list[int]) -> None:
    for i in range(len(values)):
        values[i] = 0
