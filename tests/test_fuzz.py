"""Property-based fuzzing of pool call sequences, checked against a model of the pool's state.

Hypothesis draws a pool (sync or async; the C++ engine-test task or the same task written in
Python; an autoreset mode; a time limit) and a sequence of calls -- resets (full, partial, async),
steps, sends and recvs with valid and invalid arguments, timeouts, close -- and a model predicts
every result: which envs are in flight, each env's step count and episode end, the rewards and
flags, and which calls must raise what. Each sequence runs in a forked child, so a crash or a hang
fails the example (with the sequence) instead of the run.

`make test` runs FUZZ_EXAMPLES (default 60) sequences; `make fuzz` runs thousands.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envhive
from envhive.authoring import PyEnv

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
CHILD_TIMEOUT = 60.0
ACTIONS = 1000  # Dummy-v0's Discrete(1000)


class FuzzCounter(PyEnv):
    """Dummy-v0's dynamics written in Python: obs = [0, elapsed, last action], reward = action,
    terminated after `episode_length` steps."""

    id = "fuzz/Counter-v0"
    observation_space = spaces.Box(-1.0, 1e9, shape=(3,), dtype=np.float64)
    action_space = spaces.Discrete(ACTIONS)
    state = {"elapsed": np.int64, "last": np.int64}
    config = {"episode_length": 10}

    @staticmethod
    def reset(s, rand, cfg):  # noqa: ANN001, ANN205
        s.elapsed = 0
        s.last = -1

    @staticmethod
    def step(s, action, rand, cfg):  # noqa: ANN001, ANN205
        s.elapsed += 1
        s.last = action
        return float(action), cfg.episode_length > 0 and s.elapsed >= cfg.episode_length

    @staticmethod
    def observe(s, obs, cfg):  # noqa: ANN001, ANN205
        obs[0] = 0.0
        obs[1] = s.elapsed
        obs[2] = s.last


@dataclass
class Spec:
    task: str  # "Dummy-v0" or the Python twin
    num_envs: int
    batch_size: int
    num_threads: int
    mode: str
    episode_length: int
    max_episode_steps: int


@dataclass
class Model:
    """What the pool must be doing, env by env."""

    spec: Spec
    elapsed: list[int] = field(default_factory=list)
    ended: list[bool] = field(default_factory=list)  # the episode ended (terminated or truncated)
    in_flight: list[bool] = field(default_factory=list)
    ever_reset: list[bool] = field(default_factory=list)
    pending: dict[int, int | None] = field(default_factory=dict)  # env -> action sent (None: a reset)
    closed: bool = False

    def __post_init__(self) -> None:
        n = self.spec.num_envs
        self.elapsed, self.ended = [0] * n, [False] * n
        self.in_flight, self.ever_reset = [False] * n, [False] * n

    @property
    def sync(self) -> bool:
        return self.spec.batch_size == self.spec.num_envs

    def outcome(self, env: int, action: int | None) -> tuple[int, float, bool, bool, bool]:
        """Advance env's model by one queued command: (elapsed, reward, terminated, truncated,
        ended_in_same_step). A None action is a reset."""
        s = self.spec
        if action is None or (self.ended[env] and s.mode == "next_step"):
            self.elapsed[env], self.ended[env] = 0, False
            return 0, 0.0, False, False, False
        self.elapsed[env] += 1
        terminated = s.episode_length > 0 and self.elapsed[env] >= s.episode_length
        truncated = s.max_episode_steps > 0 and self.elapsed[env] >= s.max_episode_steps
        ended = terminated or truncated
        self.ended[env] = ended
        if ended and s.mode == "same_step":  # reset inside the ending step
            self.elapsed[env], self.ended[env] = 0, False
        return self.elapsed[env], float(action), terminated, truncated, ended

    def check_rows(self, obs: np.ndarray, rew: np.ndarray, term: np.ndarray, trunc: np.ndarray, info: dict) -> None:
        for r, env in enumerate(info["env_id"].tolist()):
            assert self.in_flight[env], f"env {env} returned but was not in flight"
            action = self.pending.pop(env)
            elapsed, reward, terminated, truncated, same_step_end = self.outcome(env, action)
            got = (int(obs[r, 1]), float(rew[r]), bool(term[r]), bool(trunc[r]))
            assert got == (elapsed, reward, terminated, truncated), (
                f"env {env}: got {got}, model {elapsed, reward, terminated, truncated}"
            )
            if self.spec.mode == "same_step":
                has_final = "_final_obs" in info and bool(info["_final_obs"][r])
                assert has_final == same_step_end, f"env {env}: final_obs {has_final}, model {same_step_end}"
            self.in_flight[env] = False


OPS = ("reset", "partial_reset", "async_reset", "step", "send", "recv", "recv_timeout", "bad_call", "close")


@st.composite
def programs(draw: st.DrawFn) -> tuple[Spec, list[tuple[str, int]]]:
    n = draw(st.integers(1, 8))
    batch = draw(st.sampled_from([n, max(1, n // 2), 1]))
    spec = Spec(
        task=draw(st.sampled_from(["Dummy-v0", "fuzz/Counter-v0"])),
        num_envs=n,
        batch_size=batch,
        num_threads=draw(st.integers(1, 3)),
        mode=draw(st.sampled_from(["next_step", "same_step", "disabled"])),
        episode_length=draw(st.integers(0, 4)),
        max_episode_steps=draw(st.integers(0, 5)),
    )
    ops = draw(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2**31)), min_size=1, max_size=40))
    return spec, ops


def expect(error: type[BaseException], fn: Any) -> None:
    try:
        fn()
    except error:
        return
    raise AssertionError(f"expected {error.__name__}")


def run_program(spec: Spec, ops: list[tuple[str, int]]) -> None:
    """Runs one call sequence against a pool and the model; raises AssertionError on a mismatch."""
    kwargs: dict[str, Any] = {"episode_length": spec.episode_length}
    env = envhive.make(
        FuzzCounter if spec.task == "fuzz/Counter-v0" else spec.task,
        num_envs=spec.num_envs,
        batch_size=spec.batch_size,
        num_threads=spec.num_threads,
        autoreset_mode=spec.mode,
        max_episode_steps=spec.max_episode_steps,
        seed=0,
        **kwargs,
    )
    m = Model(spec)
    n, b = spec.num_envs, spec.batch_size
    for op, r in ops:
        rng = np.random.default_rng(r)
        if m.closed:
            expect(envhive.PoolClosedError, lambda: env.recv(timeout=0.0))
            expect(ValueError, lambda: env.reset())
            continue
        if op == "close":
            env.close()
            m.closed = True
        elif op in ("reset", "async_reset"):
            for i in range(n):
                m.in_flight[i], m.ended[i], m.elapsed[i], m.ever_reset[i] = True, False, 0, True
            m.pending = dict.fromkeys(range(n))
            if op == "async_reset":
                env.async_reset()
                continue
            obs, info = env.reset()
            if m.sync:
                m.check_rows(obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info)
            else:
                m.check_rows(obs, np.zeros(b), np.zeros(b, bool), np.zeros(b, bool), info)
        elif op == "partial_reset":
            mask = rng.random(n) < 0.5
            mask[rng.integers(n)] = True
            if m.sync and any(not m.ever_reset[i] and not mask[i] for i in range(n)):
                expect(envhive.ResetNeeded, lambda mask=mask: env.reset(options={"reset_mask": mask}))
                continue
            if not m.sync and any(m.in_flight[i] for i in np.flatnonzero(mask)):
                expect(ValueError, lambda mask=mask: env.reset(options={"reset_mask": mask}))
                continue
            outstanding = sum(m.in_flight)
            steps_pending = any(a is not None for a in m.pending.values())
            if not m.sync and (outstanding + int(mask.sum()) < b or steps_pending):
                # Too few to fill a batch, or steps in flight whose rewards the (obs, info) would drop.
                expect(ValueError, lambda mask=mask: env.reset(options={"reset_mask": mask}))
                continue
            ids = [int(i) for i in np.flatnonzero(mask)]
            if m.sync:  # every env reports: reset ones restart, others emit their current state
                for i, action in list(m.pending.items()):  # the drain first completes what is in flight
                    m.outcome(i, action)
                    m.in_flight[i] = False
                m.pending.clear()
                for i in range(n):
                    m.in_flight[i] = True
                    m.pending[i] = None
                obs, info = env.reset(options={"reset_mask": mask})
                for row, i in enumerate(info["env_id"].tolist()):
                    m.in_flight[i] = False
                    m.pending.pop(i)
                    if mask[i]:
                        m.elapsed[i], m.ended[i], m.ever_reset[i] = 0, False, True
                    assert int(obs[row, 1]) == m.elapsed[i], f"partial reset: env {i} {obs[row, 1]} != {m.elapsed[i]}"
            else:
                for i in ids:
                    m.in_flight[i], m.ever_reset[i] = True, True
                    m.pending[i] = None
                obs, info = env.reset(options={"reset_mask": mask})
                m.check_rows(obs, np.zeros(b), np.zeros(b, bool), np.zeros(b, bool), info)
        elif op in ("step", "send"):
            free = [i for i in range(n) if not m.in_flight[i]]
            if m.sync:
                ids = list(range(n))
            else:
                if not free:
                    expect(ValueError, lambda: env.send(np.zeros(1, dtype=np.int64), np.array([0])))
                    continue
                ids = [int(i) for i in rng.permutation(free)[: rng.integers(1, len(free) + 1)]]
            actions = rng.integers(0, ACTIONS, len(ids))
            if any(m.in_flight[i] for i in ids):
                expect(ValueError, lambda ids=ids, actions=actions: env.send(actions, np.array(ids)))
                continue
            if not all(m.ever_reset[i] for i in ids):
                expect(envhive.ResetNeeded, lambda ids=ids, actions=actions: env.send(actions, np.array(ids)))
                continue
            if spec.mode == "disabled" and any(m.ended[i] for i in ids):
                expect(ValueError, lambda ids=ids, actions=actions: env.send(actions, np.array(ids)))
                continue
            for i, a in zip(ids, actions.tolist(), strict=True):
                m.in_flight[i] = True
                m.pending[i] = a
            if op == "step" and sum(m.in_flight) >= b:
                m.check_rows(*env.step(actions, np.array(ids)))
            else:
                env.send(actions, np.array(ids))
        elif op in ("recv", "recv_timeout"):
            timeout = 5.0 if op == "recv" else 0.0
            if sum(m.in_flight) < b:
                expect(ValueError, lambda timeout=timeout: env.recv(timeout=timeout))
                continue
            try:
                m.check_rows(*env.recv(timeout=timeout))
            except TimeoutError:
                assert op == "recv_timeout", "a 5 s recv of instant envs timed out"
        elif op == "bad_call":
            kind = r % 5
            if any(m.in_flight) and kind in (0, 1):  # an env in flight is refused first
                continue
            if kind == 0:
                expect(ValueError, lambda: env.step(np.full(n, ACTIONS, dtype=np.int64)))  # out of range
            elif kind == 1:
                expect(TypeError, lambda: env.step(np.zeros(n, dtype=np.float32)))  # not integers
            elif kind == 2:
                expect(ValueError, lambda: env.step(np.zeros(n + 1, dtype=np.int64)))  # shape
            elif kind == 3:
                expect(ValueError, lambda: env.recv(timeout=float("nan")))
            else:
                expect(ValueError, lambda: env.send(np.zeros(1, dtype=np.int64), np.array([n])))  # no such env
    if not m.closed:
        env.close()


def run_in_child(spec: Spec, ops: list[tuple[str, int]]) -> None:
    """run_program in a forked child; the parent sees a failure, a crash or a hang as an AssertionError."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without running the parent's atexit handlers
        os.close(read)
        try:
            run_program(spec, ops)
            result: tuple[str, str] = ("ok", "")
        except BaseException:  # noqa: BLE001 (everything is reported to the parent)
            result = ("fail", traceback.format_exc())
        os.write(write, pickle.dumps(result))
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], CHILD_TIMEOUT)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read)
        raise AssertionError(f"the call sequence hung for {CHILD_TIMEOUT:.0f} s: {spec} {ops}")
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if not data:
        raise AssertionError(
            f"the child died ({status=}, signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else None})"
        )
    verdict, detail = pickle.loads(data)
    assert verdict == "ok", detail


@pytest.fixture(scope="module", autouse=True)
def compiled_twin() -> None:
    envhive.make(FuzzCounter).close()  # compile once in the parent; forked children reuse it


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=EXAMPLES <= 100
)
@given(programs())
def test_call_sequences_match_the_model(program: tuple[Spec, list[tuple[str, int]]]) -> None:
    spec, ops = program
    run_in_child(spec, ops)
