"""Single envs: gymnasium.make("envhive/<id>") is a gymnasium.Env on a one-env pool (envhive.single)."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envhive
from envhive.single import HiveEnv

GYMNASIUM_1_4 = tuple(int(p) for p in gymnasium.__version__.split(".")[:2]) >= (1, 4)

# One id of every family at least (what a new user makes first), plus a few more of the busiest.
CHECKED = (
    "CartPole-v1",
    "Pendulum-v1",
    "MountainCarContinuous-v0",
    "FrozenLake-v1",
    "LunarLander-v3",
    "HalfCheetah-v5",
    "Hopper-v4",
    "Pong-v5",
    "CartpoleBalance-v1",
    "MiniGrid-DoorKey-8x8-v0",
    "BabyAI-GoToLocal-v0",
    "FetchReach-v4",
    "procgen-coinrun-v0",
    "CrafterReward-v1",
    "Craftax-Classic-Symbolic-v1",
)


@pytest.mark.parametrize("task_id", CHECKED)
def test_passes_gymnasiums_env_checker(task_id: str) -> None:
    env = gymnasium.make(f"envhive/{task_id}")
    assert isinstance(env.unwrapped, HiveEnv)
    spec = envhive.make_spec(task_id)
    assert env.observation_space == spec.observation_space and env.action_space == spec.action_space
    # FrozenLake's frames are Gymnasium 1.4's pixel art; Gymnasium 1.2 (the RLlib venv's) does not ship
    # its images, and rendering says so (RenderError naming the file and the installed release).
    frames_missing = task_id == "FrozenLake-v1" and not GYMNASIUM_1_4
    if frames_missing:
        frame_env = gymnasium.make(f"envhive/{task_id}", render_mode="rgb_array")
        frame_env.reset(seed=0)
        with pytest.raises(envhive.RenderError, match=r"tile_ice\.png does not exist \(the installed gymnasium 1\."):
            frame_env.render()
        frame_env.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=frames_missing)  # raises on any contract violation
    # What is left are Gymnasium's advice on infinite bounds / asymmetric Box actions, which its
    # own envs of the same id draw too.
    allowed = ("infinity", "symmetric and normalized")
    assert all(any(a in str(w.message) for a in allowed) for w in caught), [str(w.message) for w in caught]
    env.close()


@pytest.mark.parametrize(("task_id", "atol"), [("CartPole-v1", 0.0), ("Pendulum-v1", 0.0), ("HalfCheetah-v5", 0.0)])
def test_same_trajectory_as_gymnasiums_env(task_id: str, atol: float) -> None:
    hive = gymnasium.make(f"envhive/{task_id}")
    ref = gymnasium.make(task_id)
    assert hive.spec is not None and ref.spec is not None
    assert hive.spec.max_episode_steps == ref.spec.max_episode_steps
    assert hive.spec.reward_threshold == ref.spec.reward_threshold
    rng = np.random.default_rng(1)
    for seed in (3, 4):
        h_obs, _ = hive.reset(seed=seed)
        r_obs, _ = ref.reset(seed=seed)
        np.testing.assert_allclose(h_obs, r_obs, rtol=0, atol=atol)
        for t in range(300):
            space = ref.action_space
            if isinstance(space, gymnasium.spaces.Discrete):
                action: object = int(rng.integers(space.n))
            else:
                assert isinstance(space, gymnasium.spaces.Box)
                action = rng.uniform(space.low, space.high).astype(np.float32)
            h = hive.step(action)
            r = ref.step(action)
            np.testing.assert_allclose(h[0], r[0], rtol=0, atol=atol, err_msg=f"{task_id} step {t} obs")
            assert abs(h[1] - float(r[1])) <= atol, (t, h[1], r[1])
            assert type(h[1]) is float and h[2:4] == r[2:4], (t, h[2:4], r[2:4])
            if h[2] or h[3]:
                break
    hive.close()


@pytest.mark.parametrize("task_id", ["MiniGrid-DoorKey-5x5-v0", "BabyAI-GoToRedBallGrey-v0"])
def test_minigrid_single_env_is_minigrids_env(task_id: str) -> None:
    """gymnasium.make("envhive/MiniGrid-...") plays minigrid's own env of the same id: its own
    max_steps (which scales the success reward) truncates it, with no TimeLimit of Gymnasium's
    around either, and the mission is a str that the observation space contains."""
    pytest.importorskip("minigrid")
    import minigrid  # noqa: F401  (registers minigrid's ids)

    hive = gymnasium.make(f"envhive/{task_id}")
    ref = gymnasium.make(task_id)
    assert hive.spec is not None and ref.spec is not None
    assert hive.spec.max_episode_steps == ref.spec.max_episode_steps
    rng = np.random.default_rng(0)
    ends = 0
    for seed in (1, 2):
        h_obs, _ = hive.reset(seed=seed)
        r_obs, _ = ref.reset(seed=seed)
        assert isinstance(h_obs["mission"], str) and h_obs["mission"] == r_obs["mission"]
        assert hive.observation_space.contains(h_obs)
        for t in range(2000):
            action = int(rng.integers(3))  # turns and forward: random walks that end by max_steps or the goal
            h, r = hive.step(action), ref.step(action)
            np.testing.assert_array_equal(h[0]["image"], r[0]["image"], err_msg=f"{task_id} step {t}")
            assert h[1:4] == tuple(r[1:4]), (t, h[1:4], r[1:4])
            if h[2] or h[3]:
                ends += 1
                break
    assert ends == 2


def test_time_limit_and_kwargs() -> None:
    env = gymnasium.make("envhive/Pendulum-v1", max_episode_steps=5, g=3.0)
    assert env.unwrapped.task_spec.config["g"] == 3.0
    env.reset(seed=0)
    flags = [env.step(np.zeros(1, dtype=np.float32))[3] for _ in range(5)]
    assert flags == [False] * 4 + [True]
    with pytest.raises(TypeError, match="a single env takes no 'num_envs'"):
        gymnasium.make("envhive/CartPole-v1", num_envs=4)
    with pytest.raises(TypeError, match="one integer"):
        env2 = gymnasium.make("envhive/CartPole-v1")
        env2.reset(seed=0)
        env2.unwrapped.step(0.5)
    with pytest.raises(ValueError, match="shape"):
        env.unwrapped.step(np.zeros(3, dtype=np.float32))
    env.close()


def test_single_env_renders_gymnasiums_frames() -> None:
    pytest.importorskip("pygame")
    env = gymnasium.make("envhive/CartPole-v1", render_mode="rgb_array")
    ref = gymnasium.make("CartPole-v1", render_mode="rgb_array")
    assert env.metadata["render_fps"] == ref.metadata["render_fps"]
    env.reset(seed=3)
    ref.reset(seed=3)
    for t in range(20):
        frame = env.render()
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        np.testing.assert_array_equal(frame, ref.render(), err_msg=f"step {t}")
        action = t % 2
        env.step(action)
        ref.step(action)
    env.close()
    ref.close()
    # Gymnasium's make reads the modes envhive draws: "human" and "rgb_array_list" come through its
    # HumanRendering / RenderCollection wrappers over rgb_array frames; anything else is refused.
    human = gymnasium.make("envhive/CartPole-v1", render_mode="human")
    assert isinstance(human, gymnasium.wrappers.HumanRendering)
    assert human.unwrapped.render_mode == "rgb_array"
    human.close()
    listed = gymnasium.make("envhive/CartPole-v1", render_mode="rgb_array_list")
    listed.reset(seed=0)
    listed.step(0)
    assert len(listed.render()) == 2
    listed.close()
    with pytest.raises(ValueError, match="unknown render_mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's own warning about the mode comes first
        gymnasium.make("envhive/CartPole-v1", render_mode="rgb_arrays")


def test_record_video_on_the_single_env(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    imageio = pytest.importorskip("imageio")
    env = gymnasium.wrappers.RecordVideo(
        gymnasium.make("envhive/CartPole-v1", render_mode="rgb_array"),
        video_folder=str(tmp_path),
        episode_trigger=lambda episode: episode == 0,
        disable_logger=True,
    )
    env.reset(seed=0)
    rendered = [env.unwrapped.render()]
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(0)
        rendered.append(env.unwrapped.render())
        done = terminated or truncated
    # What RecordVideo captured: exactly the frames the env renders, reset frame included.
    assert len(env.recorded_frames) == len(rendered)
    for i, frame in enumerate(env.recorded_frames):
        np.testing.assert_array_equal(frame, rendered[i], err_msg=f"captured frame {i}")
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert len(videos) == 1, list(tmp_path.iterdir())
    decoded = np.stack(list(imageio.v3.imiter(videos[0])))
    # moviepy's encoder may drop the last frame (its duration rounds down at the clip's fps)
    assert decoded.shape[1:] == (400, 600, 3) and len(rendered) - 1 <= len(decoded) <= len(rendered)
    # H.264 is lossy: each decoded frame is within a mean of 8 / 255 of the frame rendered then.
    for i, frame in enumerate(decoded):
        diff = float(np.abs(frame.astype(np.int16) - rendered[i].astype(np.int16)).mean())
        assert diff < 8, f"video frame {i} differs from the rendered one by {diff:.2f} on average"


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_make_vec_every_vectorization_mode(mode: str) -> None:
    env = gymnasium.make_vec("envhive/CartPole-v1", num_envs=3, vectorization_mode=mode)
    ref = gymnasium.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    expected_type = {
        "sync": gymnasium.vector.SyncVectorEnv,
        "async": gymnasium.vector.AsyncVectorEnv,
        "vector_entry_point": envhive.HiveVectorEnv,
    }[mode]
    assert isinstance(env, expected_type)
    assert env.single_observation_space == ref.single_observation_space
    assert env.observation_space == ref.observation_space
    obs, _ = env.reset(seed=7)
    r_obs, _ = ref.reset(seed=7)
    np.testing.assert_array_equal(obs, r_obs)
    rng = np.random.default_rng(0)
    for _ in range(60):  # past the end of some episodes: both autoreset (NEXT_STEP)
        actions = rng.integers(0, 2, size=3)
        out, r_out = env.step(actions), ref.step(actions)
        for a, b in zip(out[:4], r_out[:4], strict=True):
            np.testing.assert_array_equal(a, b)
    env.close()
    ref.close()
