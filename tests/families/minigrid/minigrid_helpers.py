"""Lock-step comparison of envhive's minigrid tasks with minigrid's own envs (the real library,
under Gymnasium's SyncVectorEnv), and the policies that drive them: random actions, BabyAI's bot,
and a small planner that reaches the goal square of the MiniGrid navigation tasks."""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import gymnasium
import minigrid  # noqa: F401 - registers minigrid's ids with Gymnasium
import numpy as np
from minigrid.core.constants import DIR_TO_VEC
from minigrid.envs.babyai.core.roomgrid_level import RoomGridLevel
from minigrid.envs.babyai.core.verifier import ObjDesc, OpenInstr, PickupInstr
from minigrid.utils.baby_ai_bot import BabyAIBot

import envhive
from helpers import GYM_MODES

# Every id minigrid 3.2 registers that envhive runs natively: all but the Wave Function Collapse
# presets (which need networkx and imageio; see docs/envs.md).
MINIGRID_IDS = sorted(
    i for i in gymnasium.registry if i.startswith(("MiniGrid-", "BabyAI-")) and not i.startswith("MiniGrid-WFC-")
)

Policy = Callable[[int, gymnasium.vector.VectorEnv], np.ndarray]


def reference(
    task: str, n: int, mode: str, wrappers: tuple[Any, ...] = (), **kwargs: Any
) -> gymnasium.vector.VectorEnv:
    """minigrid's env of `task` in Gymnasium's SyncVectorEnv (kwargs go to minigrid's constructor)."""
    return gymnasium.make_vec(
        task,
        num_envs=n,
        vectorization_mode="sync",
        wrappers=list(wrappers),
        vector_kwargs={"autoreset_mode": GYM_MODES[mode]},
        **kwargs,
    )


def assert_obs_equal(ours: Any, ref: Any, what: str) -> None:
    """minigrid's observations (a Dict, or one array): images and directions exactly equal (values,
    dtypes), missions equal as text (envhive carries them as zero-padded UTF-8 bytes)."""
    if isinstance(ref, dict):
        assert isinstance(ours, dict) and list(ours) == sorted(ref), f"{what}: keys {list(ours)} != {sorted(ref)}"
        for key, value in ref.items():
            if key == "mission":
                missions = [value] if isinstance(value, str) else list(value)
                got = ours[key]
                if isinstance(got, tuple | str):  # text_observations="str": minigrid's own batch
                    assert got == value, f"{what}[mission]: {got!r} != {value!r}"
                    continue
                assert np.char.decode(np.atleast_1d(got)).tolist() == missions, f"{what}[mission]"
            else:
                assert_obs_equal(ours[key], value, f"{what}[{key}]")
        return
    ref = np.asarray(ref)
    got = np.asarray(ours)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (
        f"{what}: {got.dtype}{got.shape} != {ref.dtype}{ref.shape}"
    )
    if not np.array_equal(got, ref):
        where = np.argwhere(got != ref)
        raise AssertionError(f"{what}: {len(where)} values differ, first at {where[:3].tolist()}")


@dataclass
class Ends:
    """What a lock-step run went through."""

    episodes: int = 0
    successes: int = 0  # episodes that ended with a positive reward
    terminations: int = 0
    truncations: int = 0


def lockstep(ours: Any, ref: gymnasium.vector.VectorEnv, mode: str, seed: int, steps: int, policy: Policy) -> Ends:
    """Step envhive's pool and minigrid's vector env with the same actions: observations, rewards,
    terminated/truncated flags, final observations (SAME_STEP) and masked resets (DISABLED) equal."""
    ends = Ends()
    o1, _ = ours.reset(seed=seed)
    o2, _ = ref.reset(seed=seed)
    assert_obs_equal(o1, o2, "reset")
    for t in range(steps):
        actions = policy(t, ref)
        obs1, rew1, term1, trunc1, info1 = ours.step(actions)
        obs2, rew2, term2, trunc2, info2 = ref.step(actions)
        assert_obs_equal(obs1, obs2, f"step {t} obs")
        np.testing.assert_array_equal(rew1, rew2, err_msg=f"step {t} reward")
        np.testing.assert_array_equal(term1, term2, err_msg=f"step {t} terminated")
        np.testing.assert_array_equal(trunc1, trunc2, err_msg=f"step {t} truncated")
        done = term2 | trunc2
        ends.episodes += int(done.sum())
        ends.successes += int((done & (rew2 > 0)).sum())
        ends.terminations += int(term2.sum())
        ends.truncations += int(trunc2.sum())
        if mode == "same_step" and done.any():
            np.testing.assert_array_equal(info1["_final_obs"], info2["_final_obs"], err_msg=f"step {t} _final_obs")
            for i in np.flatnonzero(done):
                assert_obs_equal(info1["final_obs"][i], info2["final_obs"][i], f"step {t} final_obs[{i}]")
        if mode == "disabled" and done.any():
            r1, _ = ours.reset(options={"reset_mask": done.copy()})
            r2, _ = ref.reset(options={"reset_mask": done.copy()})
            assert_obs_equal(r1, r2, f"step {t} masked reset")
    return ends


def random_policy(num_actions: int, n: int, seed: int) -> Policy:
    rng = np.random.default_rng(seed)
    return lambda t, ref: rng.integers(0, num_actions, size=n)


class _Planned:
    """The reference vector env, driven by a planner per env that reads minigrid's state (the
    actions come from the reference; envhive must follow). A plan starts with each episode: after
    the step that ends one (SAME_STEP), or after the step that resets it (NEXT_STEP: that step's
    action is ignored)."""

    def __init__(self, env: gymnasium.vector.VectorEnv, make: Callable[[Any], Callable[[], int]], same_step: bool):
        self.env, self.make, self.same_step = env, make, same_step
        self.plans: list[Callable[[], int] | None] = [None] * env.num_envs
        self.resetting = np.zeros(env.num_envs, dtype=bool)

    def policy(self, t: int, ref: Any) -> np.ndarray:
        actions = np.zeros(self.env.num_envs, dtype=np.int64)
        for i, env in enumerate(self.env.envs):  # type: ignore[attr-defined]
            if self.resetting[i]:
                continue
            if self.plans[i] is None:
                self.plans[i] = self.make(env.unwrapped)
            actions[i] = self.plans[i]()  # type: ignore[misc]
        return actions

    def reset(self, **kw: Any) -> Any:
        return self.env.reset(**kw)

    def step(self, actions: np.ndarray) -> Any:
        out = self.env.step(actions)
        done = out[2] | out[3]
        self.plans = [None if d else p for d, p in zip(done, self.plans, strict=True)]
        self.resetting = np.zeros_like(done) if self.same_step else done
        return out


def run_planned(ours: Any, ref: gymnasium.vector.VectorEnv, mode: str, seed: int, steps: int, make) -> Ends:
    """lockstep() driven by a planner per env (NEXT_STEP or SAME_STEP autoreset)."""
    planned = _Planned(ref, make, same_step=mode == "same_step")
    return lockstep(ours, planned, mode, seed, steps, planned.policy)  # type: ignore[arg-type]


def babyai_bot(env: Any) -> Callable[[], int]:
    """BabyAI's bot for a level (minigrid's MiniGrid room tasks get the instruction they state)."""
    if not isinstance(env, RoomGridLevel):  # a MiniGrid task: its mission as an instruction
        env.instrs = (
            OpenInstr(ObjDesc("door"))
            if type(env).__name__ == "UnlockEnv"
            else PickupInstr(ObjDesc(env.obj.type, env.obj.color))
        )
        env.instrs.reset_verifier(env)
    bot: BabyAIBot | None = BabyAIBot(env)
    rng = np.random.default_rng(0)

    def act() -> int:
        nonlocal bot
        if bot is not None:
            try:
                with _time_limit(0.5):  # the bot can plan forever on a few layouts
                    return int(bot.replan())
            except (AssertionError, _BotTimeout):  # it gave up: random actions for the rest
                bot = None
        return int(rng.integers(0, 7))

    return act


class _BotTimeout(Exception):
    pass


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise _BotTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def goal_planner(env: Any) -> Callable[[], int]:
    """Reaches the goal square of minigrid's navigation tasks: fetches the key of a locked door
    first when there is one, opens closed doors on the way, never steps on lava."""

    def cells(kind: str) -> list[tuple[int, int]]:
        grid = env.grid
        return [(i % grid.width, i // grid.width) for i, o in enumerate(grid.grid) if o is not None and o.type == kind]

    def path_to(targets: set[tuple[int, int]], adjacent: bool) -> list[tuple[int, int]] | None:
        start = tuple(int(v) for v in env.agent_pos)
        prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            for dx, dy in DIR_TO_VEC:
                q = (p[0] + int(dx), p[1] + int(dy))
                if q in prev or not (0 <= q[0] < env.grid.width and 0 <= q[1] < env.grid.height):
                    continue
                cell = env.grid.get(*q)
                if adjacent and q in targets:
                    prev[q] = p
                    route = [q]
                    while prev[route[-1]] is not None:
                        route.append(prev[route[-1]])  # type: ignore[arg-type]
                    return route[::-1][1:]
                ok = cell is None or cell.type in ("goal", "floor") or (cell.type == "door" and not cell.is_locked)
                ok = ok or (cell is not None and cell.type == "door" and env.carrying is not None)
                if ok:
                    prev[q] = p
                    if not adjacent and q in targets:
                        route = [q]
                        while prev[route[-1]] is not None:
                            route.append(prev[route[-1]])  # type: ignore[arg-type]
                        return route[::-1][1:]
                    queue.append(q)
        return None

    def act() -> int:
        locked = [p for p in cells("door") if env.grid.get(*p).is_locked]
        if locked and env.carrying is None and cells("key"):
            route, goal_step = path_to(set(cells("key")), adjacent=True), "pickup"
        elif locked:
            route, goal_step = path_to(set(locked), adjacent=True), "toggle"
        else:
            route, goal_step = path_to(set(cells("goal")), adjacent=False), "forward"
        if not route:
            return 0  # nothing reachable: turn (the episode times out)
        nxt = route[0]
        want = (nxt[0] - int(env.agent_pos[0]), nxt[1] - int(env.agent_pos[1]))
        facing = tuple(int(v) for v in DIR_TO_VEC[env.agent_dir])
        if facing != want:
            right = (-facing[1], facing[0])
            return 1 if right == want else 0
        cell = env.grid.get(*nxt)
        if len(route) == 1 and goal_step != "forward":
            return 3 if goal_step == "pickup" else 5
        if cell is not None and cell.type == "door" and not cell.is_open:
            return 5
        return 2

    return act


def make_ours(task: str, n: int, mode: str, **kwargs: Any) -> Any:
    return envhive.make(task, num_envs=n, autoreset_mode=mode, **kwargs)
