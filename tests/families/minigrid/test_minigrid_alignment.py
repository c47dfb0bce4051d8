"""envhive's minigrid family reproduces minigrid 3.2 (the real library) step for step: every id it
registers but the WFC presets, in every autoreset mode, through successes, failures, lava, time
limits and resets; the wrappers users apply (as kwargs); frames; bad input."""

from __future__ import annotations

import warnings
import zlib
from typing import Any

import gymnasium
import numpy as np
import pytest
from minigrid.core.grid import Grid
from minigrid.core.mission import MissionSpace
from minigrid.core.world_object import Ball, Box, Door, Floor, Goal, Key, Lava, Wall
from minigrid.minigrid_env import MiniGridEnv
from minigrid.wrappers import (
    FlatObsWrapper,
    FullyObsWrapper,
    ImgObsWrapper,
    RGBImgObsWrapper,
    RGBImgPartialObsWrapper,
)
from minigrid_helpers import (
    MINIGRID_IDS,
    Ends,
    babyai_bot,
    goal_planner,
    lockstep,
    make_ours,
    random_policy,
    reference,
    run_planned,
)

import envhive
from process_helpers import assert_records_equal, async_records, sync_records

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # minigrid's older ids warn


def _seed(task: str) -> int:
    return zlib.crc32(task.encode()) % 10_000


# ------------------------------------------------------------------------------- every id


@pytest.mark.parametrize("task", MINIGRID_IDS)
def test_every_id_matches_minigrid(task: str) -> None:
    """Random play, three envs, in each autoreset mode: the id's own time limit (NEXT_STEP: BabyAI's
    per-episode budgets), then minigrid's max_steps=20 (SAME_STEP, DISABLED: timeouts and resets)."""
    seed = _seed(task)
    ends = Ends()
    for mode, limit in (("next_step", None), ("same_step", 20), ("disabled", 20)):
        kw: dict[str, Any] = {} if limit is None else {"max_episode_steps": limit}
        ref_kw: dict[str, Any] = {} if limit is None else {"max_steps": limit}
        ours = make_ours(task, 3, mode, **kw)
        ref = reference(task, 3, mode, **ref_kw)
        try:
            run = lockstep(ours, ref, mode, seed, 50, random_policy(ours.single_action_space.n, 3, seed))
        finally:
            ours.close()
            ref.close()
        if limit is not None:
            assert run.episodes >= 6, f"{mode}: episodes should end within 50 steps at max_steps=20"
        ends.episodes += run.episodes
    assert ends.episodes > 0


# Planners that finish episodes: the goal planner on the navigation tasks, BabyAI's bot on the
# levels (and on minigrid's room tasks, given their mission as an instruction).
PLANNED = {
    "MiniGrid-DoorKey-16x16-v0": goal_planner,
    "MiniGrid-MultiRoom-N6-v0": goal_planner,
    "MiniGrid-FourRooms-v0": goal_planner,
    "MiniGrid-LockedRoom-v0": goal_planner,
    "MiniGrid-LavaCrossingS11N5-v0": goal_planner,
    "MiniGrid-SimpleCrossingS11N5-v0": goal_planner,
    "MiniGrid-DistShift2-v0": goal_planner,
    "MiniGrid-LavaGapS7-v0": goal_planner,
    "MiniGrid-KeyCorridorS4R3-v0": babyai_bot,
    "MiniGrid-Unlock-v0": babyai_bot,
    "MiniGrid-UnlockPickup-v0": babyai_bot,
    "MiniGrid-BlockedUnlockPickup-v0": babyai_bot,
    "BabyAI-BossLevel-v0": babyai_bot,
    "BabyAI-MiniBossLevel-v0": babyai_bot,
    "BabyAI-SynthLoc-v0": babyai_bot,
    "BabyAI-GoToSeqS5R2-v0": babyai_bot,
    "BabyAI-UnblockPickup-v0": babyai_bot,
    "BabyAI-PutNextLocalS6N4-v0": babyai_bot,
    "BabyAI-MoveTwoAcrossS5N2-v0": babyai_bot,
    "BabyAI-OpenDoorsOrderN4Debug-v0": babyai_bot,
    "BabyAI-OpenRedBlueDoorsDebug-v0": babyai_bot,
    "BabyAI-PickupDistDebug-v0": babyai_bot,
    "BabyAI-ActionObjDoor-v0": babyai_bot,
    "BabyAI-PickupAbove-v0": babyai_bot,
    "BabyAI-UnlockToUnlock-v0": babyai_bot,
    "BabyAI-KeyCorridorS3R3-v0": babyai_bot,
    "BabyAI-GoToObjMazeS4R2-v0": babyai_bot,
}


@pytest.mark.deep
@pytest.mark.parametrize("task", list(PLANNED))
def test_solved_episodes_match_minigrid(task: str) -> None:
    """A planner reads minigrid's state and both envs follow its actions: successful episodes,
    their rewards (scaled by the steps taken) and the resets after them are equal."""
    successes = 0
    for mode in ("next_step", "same_step"):
        ours = make_ours(task, 2, mode)
        ref = reference(task, 2, mode)
        try:
            run = run_planned(ours, ref, mode, _seed(task), 90, PLANNED[task])
        finally:
            ours.close()
            ref.close()
        successes += run.successes
    assert successes >= 2, "the planner should solve episodes"


def test_lava_and_collisions_end_episodes_as_in_minigrid() -> None:
    # Random play walks into lava (terminated, reward 0) and into moving balls (reward -1).
    for task in ("MiniGrid-LavaGapS5-v0", "MiniGrid-Dynamic-Obstacles-6x6-v0"):
        ours, ref = make_ours(task, 4, "next_step"), reference(task, 4, "next_step")
        run = lockstep(ours, ref, "next_step", 3, 120, random_policy(ours.single_action_space.n, 4, 3))
        assert run.terminations >= 8 and run.successes < run.terminations
        ours.close()
        ref.close()


def test_async_pool_matches_minigrid_env_by_env() -> None:
    task = "BabyAI-GoToLocal-v0"
    n, steps = 5, 40
    ref = gymnasium.make_vec(task, num_envs=n, vectorization_mode="sync", wrappers=[ImgObsWrapper])
    rng = np.random.default_rng(0)
    acts = rng.integers(0, 7, size=(steps, n))
    want = sync_records(ref, seed=2, steps=steps, actions=lambda t: acts[t])
    ours = envhive.make(task, num_envs=n, batch_size=2, img_obs=True)
    got = async_records(ours, seed=2, steps=steps, action_of=lambda i, t: acts[t, i])
    for i in range(n):
        assert_records_equal(got[i], want[i], f"env {i}")
    ours.close()
    ref.close()


# ----------------------------------------------------------------------------- observations

WRAPPED = [
    "MiniGrid-DoorKey-6x6-v0",
    "MiniGrid-LavaCrossingS9N2-v0",
    "MiniGrid-ObstructedMaze-2Dlhb-v1",
    "BabyAI-GoTo-v0",
]
WRAPPERS: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "ImgObsWrapper": ({"img_obs": True}, [ImgObsWrapper]),
    "FullyObsWrapper": ({"fully_obs": True}, [FullyObsWrapper]),
    "RGBImgObsWrapper": ({"rgb_img_obs": True}, [RGBImgObsWrapper]),
    "RGBImgPartialObsWrapper": ({"rgb_img_partial_obs": True}, [RGBImgPartialObsWrapper]),
    "RGBImgObsWrapper-tile5-nohighlight": (
        {"rgb_img_obs": True, "rgb_tile_size": 5, "highlight": False},
        [lambda e: RGBImgObsWrapper(e, tile_size=5)],
    ),
    "ImgObs(RGBImgPartialObs)": (
        {"rgb_img_partial_obs": True, "img_obs": True},
        [RGBImgPartialObsWrapper, ImgObsWrapper],
    ),
    "FlatObsWrapper": ({"flat_obs": True}, [FlatObsWrapper]),
    "FlatObs(FullyObs)-400": (
        {"fully_obs": True, "flat_obs": True, "flat_max_str_len": 400},
        [FullyObsWrapper, lambda e: FlatObsWrapper(e, maxStrLen=400)],
    ),
    "agent_view_size=5": ({"agent_view_size": 5}, []),
    "agent_view_size=9,ImgObs": ({"agent_view_size": 9, "img_obs": True}, [ImgObsWrapper]),
}


# minigrid's FlatObsWrapper (maxStrLen 96) refuses BabyAI's longer missions: BabyAI gets it at 400.
WRAPPER_CASES = [
    (task, wrapper)
    for task in WRAPPED
    for wrapper in WRAPPERS
    if not (task.startswith("BabyAI") and wrapper == "FlatObsWrapper")
]


@pytest.mark.deep
@pytest.mark.parametrize(("task", "wrapper"), WRAPPER_CASES)
def test_wrappers_as_kwargs_match_minigrid(task: str, wrapper: str) -> None:
    kw, wrappers = WRAPPERS[wrapper]
    ref_kw = {k: v for k, v in kw.items() if k in ("agent_view_size", "highlight")}
    ours = make_ours(task, 2, "same_step", **kw)
    ref = reference(task, 2, "same_step", wrappers=tuple(wrappers), **ref_kw)
    assert ours.single_observation_space.shape == ref.single_observation_space.shape
    lockstep(ours, ref, "same_step", _seed(task), 30, random_policy(7, 2, 1))  # every observation equal
    ours.close()
    ref.close()


def test_default_observation_is_minigrids_dict() -> None:
    env = envhive.make("BabyAI-GoToLocal-v0", num_envs=2, seed=0)
    ref = gymnasium.make("BabyAI-GoToLocal-v0")
    space = env.single_observation_space
    assert list(space) == list(ref.observation_space.spaces) == ["direction", "image", "mission"]
    assert space["image"] == ref.observation_space["image"] and space["direction"] == ref.observation_space["direction"]
    assert isinstance(space["mission"], gymnasium.spaces.Text)
    obs, _ = env.reset()
    assert obs["mission"].dtype.kind == "S"  # zero-padded UTF-8 bytes: no Python object per step
    assert np.char.decode(obs["mission"])[0] == ref.reset(seed=0)[0]["mission"]
    env.close()


def test_missions_as_str_are_minigrids_batch() -> None:
    # text_observations="str": the mission batch is a tuple of str, as minigrid's SyncVectorEnv gives it.
    task = "BabyAI-SynthSeq-v0"
    for mode in ("next_step", "same_step"):
        ours = make_ours(task, 3, mode, max_episode_steps=10, text_observations="str")
        ref = reference(task, 3, mode, max_steps=10)
        run = lockstep(ours, ref, mode, 8, 25, random_policy(7, 3, 8))
        assert run.truncations >= 3
        obs, _ = ours.reset(seed=1)
        assert isinstance(obs["mission"], tuple) and all(isinstance(m, str) for m in obs["mission"])
        ours.close()
        ref.close()
    # SAME_STEP's final observations carry the mission as str too: one type per key, as minigrid's.
    ours = make_ours(task, 2, "same_step", max_episode_steps=2, text_observations="str")
    ours.reset(seed=0)
    for _ in range(2):
        *_, info = ours.step(np.zeros(2, np.int64))
    assert info["_final_obs"].all()
    assert all(isinstance(final["mission"], str) and final["mission"] for final in info["final_obs"])
    ours.close()


def test_putnext_carrying_keeps_minigrids_reset_observation() -> None:
    # minigrid computes reset()'s observation before the level hands the agent its object.
    task = "BabyAI-PutNextS5N2Carrying-v0"
    for mode in ("next_step", "same_step", "disabled"):
        ours, ref = make_ours(task, 3, mode, max_episode_steps=15), reference(task, 3, mode, max_steps=15)
        lockstep(ours, ref, mode, 4, 40, random_policy(7, 3, 4))
        ours.close()
        ref.close()


# ----------------------------------------------------------------------------------- frames


@pytest.mark.parametrize(
    ("task", "kw"),
    [
        ("MiniGrid-LavaCrossingS9N3-v0", {}),
        ("MiniGrid-KeyCorridorS3R2-v0", {"tile_size": 13}),
        ("MiniGrid-Dynamic-Obstacles-8x8-v0", {"highlight": False}),
        ("BabyAI-BossLevel-v0", {"agent_pov": True}),
        ("MiniGrid-MemoryS7-v0", {"agent_pov": True, "tile_size": 8, "agent_view_size": 5}),
    ],
)
def test_frames_match_minigrid(task: str, kw: dict[str, Any]) -> None:
    ours = envhive.make(task, num_envs=2, seed=[3, 4], render_mode="rgb_array", autoreset_mode="same_step", **kw)
    refs = [gymnasium.make(task, render_mode="rgb_array", **kw) for _ in range(2)]
    ours.reset()
    for ref, seed in zip(refs, (3, 4), strict=True):
        ref.reset(seed=seed)
    rng = np.random.default_rng(0)
    for t in range(25):
        frames = ours.render()
        for i, ref in enumerate(refs):
            want = ref.render()
            assert frames[i].shape == want.shape and np.array_equal(frames[i], want), f"step {t} env {i}"
        actions = rng.integers(0, ours.single_action_space.n, size=2)
        ours.step(actions)
        for ref, a in zip(refs, actions, strict=True):
            if any(ref.step(int(a))[2:4]):
                ref.reset()
    ours.close()


class _Tiles(MiniGridEnv):
    """minigrid's twin of the hidden MiniGridTiles-v0 (csrc/envs/minigrid/tile_sampler.h)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            mission_space=MissionSpace(mission_func=lambda: ""), width=10, height=8, max_steps=100,
            see_through_walls=True, **kwargs,
        )  # fmt: skip

    def _gen_grid(self, width: int, height: int) -> None:
        self.grid = Grid(width, height)
        objs: list[Any] = []
        for color in ("red", "green", "blue", "purple", "yellow", "grey"):
            objs += [Wall(color), Floor(color), Goal(color), Key(color), Ball(color), Box(color)]
            objs += [Door(color, is_open=True), Door(color), Door(color, is_locked=True)]
        objs.append(Lava())
        for k, obj in enumerate(objs):
            self.grid.set(k % width, k // width, obj)
        self.agent_pos, self.agent_dir, self.mission = (width - 2, height - 2), 2, ""


@pytest.mark.deep
@pytest.mark.parametrize("tile_size", [8, 32, 7])
@pytest.mark.parametrize("agent_pov", [False, True])
def test_every_tile_matches_minigrid(tile_size: int, agent_pov: bool) -> None:
    """Each object in each color and door state, highlighted or not, the agent in each direction."""
    kw = {"tile_size": tile_size, "agent_pov": agent_pov}
    ours = envhive.make("MiniGridTiles-v0", num_envs=1, render_mode="rgb_array", **kw)
    ref = _Tiles(render_mode="rgb_array", **kw)
    ours.reset(seed=0)
    ref.reset(seed=0)
    for turn in range(5):
        assert np.array_equal(ours.render()[0], ref.render()), f"turn {turn}"
        ours.step(np.array([0]))
        ref.step(0)
    ours.close()


# -------------------------------------------------------------------------------- registry


def test_every_minigrid_id_runs_natively() -> None:
    ids = set(envhive.list_envs())
    assert set(MINIGRID_IDS) <= ids
    for task in ("MiniGrid-DoorKey-8x8-v0", "BabyAI-BossLevel-v0", "minigrid:MiniGrid-Empty-5x5-v0"):
        assert envhive.registry.backend_for(task) == "native"
    vec = gymnasium.make_vec("envhive/MiniGrid-DoorKey-8x8-v0", num_envs=2)
    obs, _ = vec.reset(seed=1)
    ref, _ = gymnasium.make("MiniGrid-DoorKey-8x8-v0").reset(seed=1)
    assert np.array_equal(obs["image"][0], ref["image"])
    vec.close()


def test_time_limits_and_rewards_follow_minigrids_max_steps() -> None:
    assert envhive.make_spec("MiniGrid-DoorKey-8x8-v0").max_episode_steps == 640
    assert envhive.make_spec("BabyAI-OpenTwoDoors-v0").max_episode_steps == 720
    # BabyAI levels without a fixed limit budget each episode by its instruction (0: no pool limit).
    assert envhive.make_spec("BabyAI-GoToLocal-v0").max_episode_steps == 0
    ours = envhive.make("BabyAI-GoToLocal-v0", num_envs=1, seed=9)
    ref = gymnasium.make("BabyAI-GoToLocal-v0")
    ours.reset()
    ref.reset(seed=9)
    for t in range(64):
        out = ours.step(np.array([0]))
        want = ref.step(0)
        assert bool(out[3][0]) == want[3], t
    assert out[3][0] and ref.unwrapped.max_steps == 64


# ------------------------------------------------------------------------------- bad input


def test_bad_input_gets_clear_errors() -> None:
    env = envhive.make("MiniGrid-DoorKey-5x5-v0", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([0, 7]))
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([-1, 0]))
    env.close()
    dyn = envhive.make("MiniGrid-Dynamic-Obstacles-5x5-v0", num_envs=1)  # three actions
    dyn.reset()
    with pytest.raises(ValueError, match="action"):
        dyn.step(np.array([3]))
    dyn.close()
    with pytest.raises(TypeError, match="size"):
        envhive.make("MiniGrid-DoorKey-5x5-v0", size=6)
    for bad in (4, 1, -3):
        with pytest.raises(ValueError, match="agent_view_size must be odd and >= 3"):
            envhive.make("MiniGrid-DoorKey-5x5-v0", agent_view_size=bad)
    with pytest.raises(ValueError, match="at most one"):
        envhive.make("MiniGrid-DoorKey-5x5-v0", fully_obs=True, rgb_img_obs=True)
    with pytest.raises(ValueError, match="img_obs and flat_obs"):
        envhive.make("MiniGrid-DoorKey-5x5-v0", img_obs=True, flat_obs=True)
    with pytest.raises(ValueError, match="max_episode_steps must be >= 1"):
        envhive.make("MiniGrid-DoorKey-5x5-v0", max_episode_steps=0)
    with pytest.raises(ValueError, match=r"rgb_tile_size must be in \[1, 16384\]"):
        envhive.make("MiniGrid-DoorKey-5x5-v0", rgb_img_obs=True, rgb_tile_size=0)


def test_too_long_missions_for_flat_obs_fail_like_minigrid() -> None:
    env = envhive.make("BabyAI-BossLevel-v0", num_envs=4, seed=0, flat_obs=True, flat_max_str_len=20)
    with pytest.raises(envhive.EnvError, match="mission string too long"):
        env.reset()
    env.close()


def test_no_warning_from_the_native_tasks() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = envhive.make("BabyAI-BossLevel-v0", num_envs=2)
        env.reset(seed=0)
        env.close()
