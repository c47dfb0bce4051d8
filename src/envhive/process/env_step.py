"""The worker's one stepper, and its per-env commands (async steps and resets).

``Episodes`` holds where each of a worker's envs stands in its episode and is the one place its
transitions are written: a step with autoreset (NEXT_STEP's reset step; SAME_STEP's reset inside
the step, after the ended episode's row is written), a reset, and the failure path. Both the sync
step of a whole block (``envhive.process.block_step``) and the per-env commands below step through
it. A per-env command's row is published as it completes (first-N-ready needs every env as soon
as it is done).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gymnasium.vector import AutoresetMode

from envhive.process.protocol import OP_OPTIONS, OP_SEEDED, OP_STEP
from envhive.process.worker_pipe import ParentPipe
from envhive.process.worker_rows import WorkerRows

Transition = tuple[Any, Any, Any, Any, dict[str, Any], bool]
"""``(obs, reward, terminated, truncated, info, final)``; ``final``: SAME_STEP wrote the ended
episode's final row and ``obs`` / ``info`` are the next episode's reset."""


@dataclass
class Episodes:
    """The worker's envs (global ids ``lo..``), where each stands in its episode, and their
    transitions (the module doc)."""

    envs: list[Any]
    lo: int
    same_step: bool
    write_final: Callable[[int, Any, dict[str, Any], int], None]  # (env id, obs, info, elapsed): SAME_STEP's end
    pending_seeds: dict[int, int]  # env id -> the seed of its next reset, when one is set
    elapsed: list[int]
    ended: list[bool]  # its next step is a reset (NEXT_STEP's reset step, after a failure, at first)

    @classmethod
    def start(
        cls,
        envs: list[Any],
        lo: int,
        mode: AutoresetMode,
        write_final: Callable[[int, Any, dict[str, Any], int], None],
        pending_seeds: dict[int, int],
    ) -> Episodes:
        """Envs never reset yet (the parent refuses to step such an env)."""
        n = len(envs)
        return cls(envs, lo, mode == AutoresetMode.SAME_STEP, write_final, dict(pending_seeds), [0] * n, [True] * n)

    def step(self, i: int, action: Any) -> Transition:
        """Step env ``lo + i`` with ``action``, autoreset included."""
        if self.ended[i]:  # NEXT_STEP's reset step, or the first step after a failure or a restart
            obs, info = self.envs[i].reset(seed=self.pending_seeds.pop(self.lo + i, None))
            self.elapsed[i] = 0
            self.ended[i] = False
            return obs, 0.0, False, False, info, False
        obs, reward, terminated, truncated, info = self.envs[i].step(action)
        if not (terminated or truncated):
            self.elapsed[i] += 1
            return obs, reward, terminated, truncated, info, False
        elapsed = self.elapsed[i] + 1
        if not self.same_step:
            self.elapsed[i] = elapsed
            self.ended[i] = True
            return obs, reward, terminated, truncated, info, False
        self.write_final(self.lo + i, obs, info, elapsed)
        obs, info = self.envs[i].reset(seed=self.pending_seeds.pop(self.lo + i, None))
        self.elapsed[i] = 0
        return obs, reward, terminated, truncated, info, True

    def reset(self, i: int, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        """The reset the parent asked for: ``seed`` (None: the pending seed of a restart, if any)."""
        pending = self.pending_seeds.pop(self.lo + i, None)
        obs, info = self.envs[i].reset(seed=pending if seed is None else seed, options=options)
        self.elapsed[i] = 0
        self.ended[i] = False
        return obs, info

    def fail(self, i: int) -> None:
        """Env ``lo + i`` raised: it starts a new episode on its next step (DISABLED: after a reset)."""
        self.ended[i] = True
        self.elapsed[i] = 0


class EnvStep:
    """Runs one per-env command (``env_id << OP_BITS | op``) and writes its row."""

    def __init__(self, episodes: Episodes, rows: WorkerRows, pipe: ParentPipe) -> None:
        self.episodes = episodes
        self.rows = rows
        self.pipe = pipe

    def run(self, env_id: int, op: int) -> None:
        episodes, rows = self.episodes, self.rows
        i = env_id - episodes.lo
        try:
            if op == OP_STEP:
                obs, reward, terminated, truncated, info, final = episodes.step(i, rows.read_action(env_id))
            else:  # OP_RESET, with a seed and options when flagged
                seed = int(rows.seeds[env_id]) if op & OP_SEEDED else None
                options = self.pipe.reset_options(env_id) if op & OP_OPTIONS else None
                obs, info = episodes.reset(i, seed, options)
                reward, terminated, truncated, final = 0.0, False, False, False
            rows.write_row(env_id, obs, reward, terminated, truncated, episodes.elapsed[i], info, final)
        except Exception as error:  # noqa: BLE001 - reported to the parent as EnvError
            episodes.fail(i)
            self.pipe.error(env_id, error)
            rows.fail(env_id)
        # A later sync step rewrites the block's kinds and final flags (they were written per env).
        rows.kinds_dirty = rows.finals_dirty = True
