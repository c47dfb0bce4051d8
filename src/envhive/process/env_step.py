"""One env at a time: a worker's per-env commands (async steps and resets).

Each is published as it completes (first-N-ready needs every env as soon as it is done). The
state both this and the block step keep of each env -- where it stands in its episode -- is
``Episodes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envhive.process.protocol import OP_OPTIONS, OP_RESET, OP_SEEDED, OP_STEP, SAME_STEP
from envhive.process.worker_pipe import ParentPipe
from envhive.process.worker_rows import WorkerRows


@dataclass
class Episodes:
    """The worker's envs (global ids ``lo..``) and where each stands in its episode."""

    envs: list[Any]
    lo: int
    autoreset: int  # the pool's mode (envhive.process.protocol: NEXT_STEP, SAME_STEP, DISABLED)
    pending_seeds: dict[int, int]  # env id -> the seed of its next reset, when one is set
    elapsed: list[int]
    ended: list[bool]  # its next step is a reset (NEXT_STEP's reset step, after a failure, at first)

    @classmethod
    def start(cls, envs: list[Any], lo: int, autoreset: int, pending_seeds: dict[int, int]) -> Episodes:
        """Envs never reset yet (the parent refuses to step such an env)."""
        return cls(envs, lo, autoreset, dict(pending_seeds), [0] * len(envs), [True] * len(envs))

    def autoreset_env(self, i: int) -> tuple[Any, dict[str, Any]]:
        """Reset env ``lo + i`` with its pending seed, if any."""
        return self.envs[i].reset(seed=self.pending_seeds.pop(self.lo + i, None))


class EnvStep:
    """Runs one per-env command (``env_id << OP_BITS | op``) and writes its row."""

    def __init__(self, episodes: Episodes, rows: WorkerRows, pipe: ParentPipe) -> None:
        self.episodes = episodes
        self.rows = rows
        self.pipe = pipe

    def run(self, env_id: int, op: int) -> None:
        episodes, rows = self.episodes, self.rows
        i = env_id - episodes.lo
        env = episodes.envs[i]
        final = False
        try:
            if op == OP_STEP and not episodes.ended[i]:  # the common case first
                obs, reward, terminated, truncated, info = env.step(rows.read_action(env_id))
                elapsed = episodes.elapsed[i] + 1
                if terminated or truncated:
                    if episodes.autoreset == SAME_STEP:
                        final = True
                        rows.write_final(env_id, obs, info, elapsed)
                        obs, info = episodes.autoreset_env(i)
                        elapsed = 0
                    else:
                        episodes.ended[i] = True
                episodes.elapsed[i] = elapsed
            else:
                obs, info = self._reset(i, op)
                reward, terminated, truncated = 0.0, False, False
                episodes.elapsed[i] = 0
                episodes.ended[i] = False
            rows.write_row(env_id, obs, reward, terminated, truncated, episodes.elapsed[i], info, final)
        except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
            episodes.ended[i] = True  # the env starts a new episode on its next step
            episodes.elapsed[i] = 0
            self.pipe.error(env_id, error)
            rows.fail(env_id)
        # A later sync step rewrites the block's kinds and final flags (they were written per env).
        rows.kinds_dirty = rows.finals_dirty = True

    def _reset(self, i: int, op: int) -> tuple[Any, dict[str, Any]]:
        """A reset the parent asked for (``OP_RESET``: seed, options), or an autoreset (NEXT_STEP's
        reset step, or the first step after a failure or a restart)."""
        episodes = self.episodes
        if not op & OP_RESET:
            return episodes.autoreset_env(i)
        env_id = episodes.lo + i
        seed = episodes.pending_seeds.pop(env_id, None)
        if op & OP_SEEDED:
            seed = int(self.rows.seeds[env_id])
        options = self.pipe.reset_options(env_id) if op & OP_OPTIONS else None
        return episodes.envs[i].reset(seed=seed, options=options)
