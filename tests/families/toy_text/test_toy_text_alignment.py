"""Gymnasium's toy-text tasks on envhive's native pool against Gymnasium 1.4 itself: same seeds,
same actions, identical observations (Blackjack's Tuple too), rewards, flags, infos (`prob`,
`action_mask`) and final observations in every autoreset mode, and identical frames.

Everything is exact. One of Gymnasium's quirks is matched in the comparison, not in envhive:
SyncVectorEnv gives a batched info the dtype of the first value it sees, so where an env's reset
reports `prob` as the int 1 beside other envs' float probabilities, Gymnasium's array is int and
truncates them (helpers.assert_infos_equal compares envhive's floats after the same cast).
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import envhive
from helpers import GYM_MODES, MODES, assert_same, gym_vec, lockstep

# Gymnasium 1.4's toy text: Taxi-v4, FrozenLake's success_rate and reward_schedule, the pixel-art
# renderers. Gymnasium 1.2 (the RLlib venv's) has other versions of these MDPs and frames.
pytestmark = pytest.mark.skipif(
    tuple(int(p) for p in gymnasium.__version__.split(".")[:2]) < (1, 4),
    reason=f"envhive's toy text is Gymnasium 1.4's; Gymnasium {gymnasium.__version__} has other versions",
)

TASKS = ("FrozenLake-v1", "FrozenLake8x8-v1", "Taxi-v4", "CliffWalking-v1", "CliffWalkingSlippery-v1", "Blackjack-v1")
NUM_ENVS = 4


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _taxi_driver(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Drives to the passenger, picks them up, drives to the destination, drops them off (a third
    of the actions random, to get past walls): episodes end, and fickle passengers ride."""
    pads = ((0, 0), (0, 4), (4, 0), (4, 3))
    actions = []
    for s in obs:
        row, col, pas, dest = s // 100, (s // 20) % 5, (s // 4) % 5, s % 4
        target = pads[pas] if pas < 4 else pads[dest]
        if (row, col) == target:
            a = 4 if pas < 4 else 5
        else:
            moves = ([0] if target[0] > row else [1] if target[0] < row else []) + (
                [2] if target[1] > col else [3] if target[1] < col else []
            )
            a = moves[rng.integers(len(moves))]
        actions.append(rng.integers(6) if rng.random() < 0.3 else a)
    return np.array(actions)


def _cliff_walker(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mostly up, right, then down to the goal; sometimes along the cliff edge (falls)."""
    row, col = obs // 12, obs % 12
    a = np.where(col == 11, 2, np.where(row == 3, 0, 1))
    return np.where(rng.random(len(obs)) < 0.25, rng.integers(0, 4, size=len(obs)), a)


POLICIES = {"Taxi-v4": _taxi_driver, "CliffWalking-v1": _cliff_walker, "CliffWalkingSlippery-v1": _cliff_walker}


def _run(task_id: str, mode: str, seed: int, n_steps: int, **kwargs: Any) -> Any:
    hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode, **kwargs)
    ref = _quiet(gym_vec, task_id, NUM_ENVS, mode, **kwargs)
    try:
        return lockstep(hive, ref, mode, seed, n_steps, policy=POLICIES.get(task_id), action_seed=seed, infos=True)
    finally:
        hive.close()
        ref.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task_id", TASKS)
def test_trajectories_match_gymnasium(task_id: str, mode: str) -> None:
    limit = {"max_episode_steps": 60} if task_id.startswith(("Taxi", "Cliff")) else {}
    ended = 0
    for seed in (0, 1):
        ended += int(_run(task_id, mode, seed, 200, **limit).episodes.sum())
    assert ended >= 2 * NUM_ENVS, "episodes should end and restart along the way"


KWARGS = [
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake8x8-v1", {"success_rate": 0.75, "reward_schedule": (10, -1, -0.01)}),
    ("FrozenLake-v1", {"desc": ["SFFHF", "FHFFS", "FFGHF"], "is_slippery": True}),
    ("FrozenLake-v1", {"map_name": "8x8"}),
    ("Taxi-v4", {"is_rainy": True}),
    ("Taxi-v4", {"fickle_passenger": True, "fickle_probability": 0.9}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True, "rainy_probability": 0.5, "fickle_probability": 0.6}),
    ("CliffWalking-v1", {"is_slippery": True}),
    ("Blackjack-v1", {"sab": False}),
    ("Blackjack-v1", {"sab": False, "natural": True}),
]


@pytest.mark.parametrize(("task_id", "kwargs"), KWARGS, ids=[f"{t}-{'-'.join(k)}" for t, k in KWARGS])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_kwargs_match_gymnasium(task_id: str, kwargs: dict[str, Any], mode: str) -> None:
    if task_id.startswith(("Taxi", "Cliff")):
        kwargs = {**kwargs, "max_episode_steps": 80}
    for seed in (2, 3):
        _run(task_id, mode, seed, 160, **kwargs)


def test_taxi_driver_delivers_and_fickle_passengers_change_their_minds() -> None:
    # Guards the Taxi runs above: passengers are delivered (+20), and with fickle_passenger the
    # destinations change during the ride.
    env = envhive.make("Taxi-v4", num_envs=8, seed=0, fickle_passenger=True, fickle_probability=1.0)
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    delivered = changed = 0
    for _ in range(400):
        before = obs.copy()
        obs, rew, term, trunc, _ = env.step(_taxi_driver(obs, rng))
        delivered += int((rew == 20).sum())
        riding = ((before // 4) % 5 == 4) & ((obs // 4) % 5 == 4) & ~(term | trunc)
        changed += int((riding & (before % 4 != obs % 4)).sum())
    env.close()
    assert delivered >= 6 and changed >= 4


def test_kwargs_change_the_mdp() -> None:
    # Guards the kwarg tests against kwargs accepted but ignored.
    a = envhive.make("FrozenLake-v1", num_envs=6, seed=1)
    b = envhive.make("FrozenLake-v1", num_envs=6, seed=1, is_slippery=False)
    a.reset()
    b.reset()
    moves = np.full(6, 2)
    assert not np.array_equal(a.step(moves)[0], b.step(moves)[0])
    c = envhive.make("FrozenLake-v1", num_envs=1, desc=["SG"], is_slippery=False, reward_schedule=[5, 0, 0])
    c.reset()
    _, rew, term, *_ = c.step(np.array([2]))
    assert rew[0] == 5 and term[0]
    for env in (a, b, c):
        env.close()


@pytest.mark.parametrize("task_id", TASKS)
def test_spaces_equal_gymnasiums(task_id: str) -> None:
    hive = envhive.make(task_id, num_envs=2)
    ref = _quiet(gymnasium.make, task_id)
    assert hive.single_observation_space == ref.observation_space
    assert hive.single_action_space == ref.action_space
    assert envhive.make_spec(task_id).max_episode_steps == (gymnasium.spec(task_id).max_episode_steps or 0)
    hive.close()
    ref.close()


def test_blackjack_observation_is_a_tuple_of_arrays() -> None:
    env = envhive.make("Blackjack-v1", num_envs=3, seed=0)
    obs, _ = env.reset()
    assert isinstance(obs, tuple) and len(obs) == 3
    assert all(o.shape == (3,) and o.dtype == np.int64 for o in obs)
    assert obs in env.observation_space
    env.close()


# ----------------------------------------------------------------------------------- frames
def _frames(task_id: str, seed: int, n_steps: int, policy: Any, **kwargs: Any) -> int:
    """Gymnasium's frames and envhive's, every step, across episode ends (both reset)."""
    pytest.importorskip("pygame")
    ref = _quiet(gymnasium.make, task_id, render_mode="rgb_array", **kwargs)
    hive = envhive.make(task_id, num_envs=1, seed=seed, render_mode="rgb_array", autoreset_mode="disabled", **kwargs)
    try:
        g_obs, _ = ref.reset(seed=seed)
        h_obs, _ = hive.reset()
        rng = np.random.default_rng(seed)
        for t in range(n_steps):
            assert_same(h_obs, np.asarray(g_obs)[..., None] if isinstance(g_obs, tuple) else [g_obs], what=f"step {t}")
            np.testing.assert_array_equal(hive.render()[0], ref.render(), err_msg=f"{task_id} seed {seed} frame {t}")
            a = policy(h_obs if not isinstance(h_obs, tuple) else h_obs[0], rng)
            g_obs, _, g_term, g_trunc, _ = ref.step(int(a[0]))
            h_obs, _, h_term, h_trunc, _ = hive.step(a)
            if g_term or g_trunc:
                g_obs, _ = ref.reset()
                h_obs, _ = hive.reset(options={"reset_mask": np.array([True])})
        return n_steps
    finally:
        hive.close()
        ref.close()


def _random(space_n: int) -> Any:
    return lambda _obs, rng: rng.integers(0, space_n, size=1)


FRAME_CASES = [
    ("FrozenLake-v1", {}, _random(4)),
    ("FrozenLake8x8-v1", {}, _random(4)),
    # 10 columns: 51-pixel cells, so every tile and sprite goes through pygame.transform.scale
    ("FrozenLake-v1", {"desc": ["SFFHFFFFFF", "FFFFFFHFFF", "FFHFFFFFFG"]}, _random(4)),
    ("Taxi-v4", {}, _taxi_driver),
    ("CliffWalking-v1", {}, _cliff_walker),
    ("Blackjack-v1", {}, _random(2)),
]


@pytest.mark.parametrize(("task_id", "kwargs", "policy"), FRAME_CASES, ids=[c[0] + str(len(c[1])) for c in FRAME_CASES])
def test_frames_equal_gymnasiums(task_id: str, kwargs: dict[str, Any], policy: Any) -> None:
    for seed in (0, 5):
        _frames(task_id, seed, 40, policy, **kwargs)


# ----------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"desc": ["SFF", "FH"]}, "row 1 has 2 tiles, row 0 has 3"),
        ({"desc": ["SFX", "FHG"]}, "unknown tile 'X' in row 0"),
        ({"desc": ["FFF", "FHG"]}, "no start tile 'S'"),
        ({"desc": "SF\n\nFG"}, "row 1 has 0 tiles"),
        ({"map_name": "5x5"}, "map_name must be .4x4., .8x8. or None"),
        ({"reward_schedule": [1, 0]}, "reward_schedule must hold 3 rewards"),
    ],
)
def test_bad_frozen_lake_maps(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envhive.make("FrozenLake-v1", **kwargs)


def test_bad_actions_name_the_env() -> None:
    env = envhive.make("Taxi-v4", num_envs=3)
    env.reset()
    with pytest.raises(ValueError, match=r"action 6 for env 2 .*Discrete\(6\)"):
        env.step(np.array([0, 1, 6]))
    bj = envhive.make("Blackjack-v1", num_envs=2)
    bj.reset()
    with pytest.raises(ValueError, match=r"action -1 for env 0"):
        bj.step(np.array([-1, 0]))
    assert env.step(np.array([0, 1, 2]))[0].shape == (3,)  # still usable
    env.close()
    bj.close()


@pytest.mark.parametrize(
    ("envpool_id", "envpool_kwargs", "task_id", "kwargs"),
    [
        ("FrozenLake-v1", {"size": 8}, "FrozenLake8x8-v1", {}),
        ("FrozenLake8x8-v1", {}, "FrozenLake-v1", {"map_name": "8x8"}),
        ("Taxi-v3", {}, "Taxi-v4", {}),
        ("CliffWalking-v0", {"is_slippery": True}, "CliffWalkingSlippery-v1", {}),
        ("tabular/Blackjack-v0", {"sab": False}, "Blackjack-v1", {"sab": False}),
    ],
)
def test_envpool_ids_run_the_same_mdp(
    envpool_id: str, envpool_kwargs: dict[str, Any], task_id: str, kwargs: dict[str, Any]
) -> None:
    import envhive.envpool as envpool

    ours = envpool.make_gymnasium(envpool_id, num_envs=3, seed=2, **envpool_kwargs)
    hive = envhive.make(task_id, num_envs=3, seed=2, **kwargs)
    assert_same(ours.reset()[0], hive.reset()[0])
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = rng.integers(0, hive.single_action_space.n, size=3)
        a, b = ours.step(actions), hive.step(actions)
        assert_same(a[0], b[0])
        assert_same(a[1], b[1].astype(a[1].dtype))  # EnvPool's rewards are float32
    ours.close()
    hive.close()
    with pytest.raises(ValueError, match="size must be 4 or 8"):
        envpool.make_gymnasium("FrozenLake-v1", size=5)


# ----------------------------------------------------------------------------------- random maps, wide maps
def _random_map_reference(seed: int, n: int, mode: str, **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """Gymnasium's FrozenLake-v1 with map_name=None draws generate_random_map() when it is made (from
    fresh entropy); envhive draws it from each env's first seed, i.e. generate_random_map(seed=s + i)."""
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    def make(i: int) -> Any:
        return lambda: gymnasium.make("FrozenLake-v1", desc=generate_random_map(seed=seed + i), **kwargs)

    return gymnasium.vector.SyncVectorEnv([make(i) for i in range(n)], autoreset_mode=GYM_MODES[mode])


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_map_name_none_draws_gymnasiums_random_map(mode: str) -> None:
    for seed in (0, 7):
        hive = envhive.make("FrozenLake-v1", map_name=None, num_envs=3, seed=seed, autoreset_mode=mode)
        ref = _random_map_reference(seed, 3, mode)
        assert hive.single_observation_space == ref.single_observation_space == gymnasium.spaces.Discrete(64)
        try:
            lockstep(hive, ref, mode, seed, 300, action_seed=seed, infos=True)
        finally:
            hive.close()
            ref.close()


def test_random_map_frames_and_unseeded_pools() -> None:
    """The map itself (its frame) is generate_random_map(seed=...)'s; a reset with a new seed keeps it,
    as Gymnasium's map is fixed when the env is made; an unseeded pool draws maps from entropy."""
    pytest.importorskip("pygame")
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    hive = envhive.make("FrozenLake-v1", map_name=None, desc=None, num_envs=2, seed=3, render_mode="rgb_array")
    hive.reset()
    for i in range(2):
        ref = gymnasium.make("FrozenLake-v1", desc=generate_random_map(seed=3 + i), render_mode="rgb_array")
        ref.reset(seed=3 + i)
        np.testing.assert_array_equal(hive.render(env_ids=[i])[0], ref.render())
        first = hive.render(env_ids=[i])[0]
        hive.reset(seed=100)
        np.testing.assert_array_equal(hive.render(env_ids=[i])[0], first)  # the same map after reseeding
        ref.close()
    hive.close()
    unseeded = envhive.make("FrozenLake-v1", map_name=None, num_envs=8, seed=None, render_mode="rgb_array")
    unseeded.reset()
    frames = unseeded.render()
    assert len({f.tobytes() for f in frames}) > 1, "8 maps from entropy should not all be the same"
    unseeded.close()


@pytest.mark.parametrize(
    "desc", [["S" + "F" * 598 + "G"], ["SF" + "H" * 600, "F" * 601 + "G"], ["SF"] + ["FF"] * 600 + ["FG"]]
)
def test_maps_wider_than_the_frame_render_as_gymnasium(desc: list[str]) -> None:
    """Past 512 cells a side a cell is 0 pixels (Gymnasium scales its tiles to nothing): the frame is
    Gymnasium's, not an error -- where nothing draws, the last frame's pixels stay (the agent of an
    earlier step), as on Gymnasium's window surface."""
    pytest.importorskip("pygame")
    ref = _quiet(gymnasium.make, "FrozenLake-v1", desc=desc, render_mode="rgb_array", is_slippery=False)
    hive = envhive.make("FrozenLake-v1", desc=desc, num_envs=1, seed=0, render_mode="rgb_array", is_slippery=False)
    ref.reset(seed=0)
    hive.reset()
    for t in range(6):
        np.testing.assert_array_equal(hive.render()[0], ref.render(), err_msg=f"frame {t}")
        action = 2 if t % 2 == 0 else 1  # right, down, ...
        ref.step(action)
        hive.step(np.array([action]))
    hive.close()
    ref.close()
