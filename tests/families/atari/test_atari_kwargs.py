"""The Atari family: registration, spaces and options, validation, determinism, autoreset modes,
async stepping and the module's isolation (ALE lives in envhive._atari only)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import dm_env
import numpy as np
import pytest

import envhive
from envhive import catalog
from envhive.errors import UnknownTaskError

ENVPOOL_DEFAULTS = {
    "frame_skip": 4,
    "img_height": 84,
    "img_width": 84,
    "gray_scale": True,
    "stack_num": 4,
    "noop_max": 30,
    "episodic_life": False,
    "zero_discount_on_life_loss": False,
    "reward_clip": False,
    "repeat_action_probability": 0.0,
    "full_action_space": False,
    "use_fire_reset": True,
    "use_inter_area_resize": True,
    "max_episode_steps": 27000,
}


def atari_ids() -> list[str]:
    # The catalog's record (no spaces resolved: some tasks have none without a kwarg, VizdoomCustom's cfg_path).
    return [t for t in envhive.list_envs() if catalog.get(t).family == "atari"]


def run(env: envhive.HiveVectorEnv, steps: int, seed: int = 0) -> list[tuple]:
    """(obs, reward, terminated, truncated, lives) of every step under fixed random actions."""
    rng = np.random.default_rng(seed)
    out = []
    obs, info = env.reset()
    out.append((obs.copy(), None, None, None, info["lives"].copy()))
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(rng.integers(0, env.single_action_space.n, env.num_envs))
        out.append((obs.copy(), r.copy(), term.copy(), trunc.copy(), info["lives"].copy()))
    return out


def assert_same_runs(a: list[tuple], b: list[tuple]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v, err_msg=f"step {t}")


def test_every_ale_game_is_registered_like_gymnasium() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    ale_py = pytest.importorskip("ale_py")
    gymnasium.register_envs(ale_py)
    gym_ids = {k.split("/", 1)[1] for k in gymnasium.registry if k.startswith("ALE/") and k.endswith("-v5")}
    ids = set(atari_ids())
    assert ids == gym_ids
    assert {"Pong-v5", "Breakout-v5", "MontezumaRevenge-v5", "TicTacToe3D-v5", "Pitfall2-v5"} <= ids
    assert len(ids) >= 100


def test_defaults_are_envpools() -> None:
    spec = envhive.make_spec("Pong-v5")
    for name, value in ENVPOOL_DEFAULTS.items():
        assert spec.config[name] == value and type(spec.config[name]) is type(value), name
    assert spec.config["mode"] == -1 and spec.config["difficulty"] == -1 and spec.config["ram"] is False
    assert spec.observation_space.shape == (4, 84, 84) and spec.observation_space.dtype == np.uint8
    assert spec.action_space.n == 6
    assert spec.info_fields == {
        "lives": (np.dtype("int32"), ()),
        "reward": (np.dtype("float64"), ()),
        "terminated": (np.dtype("bool"), ()),
    }
    assert all(doc for doc in spec.task.config_docs.values())


def test_spaces_follow_options() -> None:
    options = {"gray_scale": False, "stack_num": 2, "img_height": 100, "img_width": 60, "full_action_space": True}
    spec = envhive.make_spec("Breakout-v5", **options, ram=True, zero_discount_on_life_loss=True)
    assert spec.observation_space.shape == (6, 100, 60)
    assert spec.action_space.n == 18
    assert spec.info_fields["ram"] == (np.dtype("uint8"), (128,))
    assert spec.info_fields["discount"] == (np.dtype("float32"), ())
    assert envhive.make_spec("Breakout-v5").action_space.n == 4
    env = envhive.make("Breakout-v5", num_envs=2, **options, ram=True)
    obs, info = env.reset()
    assert obs.shape == (2, 6, 100, 60) and info["ram"].shape == (2, 128) and info["ram"].dtype == np.uint8
    assert set(info["lives"]) == {5}
    obs, *_ = env.step(np.array([17, 0]))
    assert obs.shape == (2, 6, 100, 60)


def test_unknown_game_suggests_close_names() -> None:
    with pytest.raises(UnknownTaskError, match="did you mean 'Pong-v5'"):
        envhive.make("Pongg-v5")
    with pytest.raises(UnknownTaskError, match="'Breakout-v5'"):
        envhive.make_spec("BreakOut-v5")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"img_height": 0}, "img_height must be in"),
        ({"img_width": -84}, "img_width must be in"),
        ({"img_height": 100000}, "img_height must be in"),
        ({"frame_skip": 0}, "frame_skip must be in"),
        ({"stack_num": 0}, "stack_num must be in"),
        ({"noop_max": -1}, "noop_max must be in"),
        ({"repeat_action_probability": 1.5}, "repeat_action_probability must be in"),
        ({"mode": 99}, re.escape("Pong-v5: mode 99 is not available; modes: 0, 1 (-1: the default, 0)")),
        ({"difficulty": 7}, "difficulty 7 is not available"),
    ],
)
def test_invalid_options_raise_value_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        envhive.make_spec("Pong-v5", **kwargs)
    with pytest.raises(ValueError, match=message):
        envhive.make("Pong-v5", **kwargs)


def test_wrongly_typed_options_raise_type_error() -> None:
    with pytest.raises(TypeError, match="gray_scale"):
        envhive.make_spec("Pong-v5", gray_scale="yes")
    with pytest.raises(TypeError, match="img_height"):
        envhive.make_spec("Pong-v5", img_height=84.0)
    with pytest.raises(TypeError, match="did you mean 'frame_skip'"):
        envhive.make_spec("Pong-v5", frameskip=4)


def test_actions_are_validated() -> None:
    env = envhive.make("Pong-v5", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="outside Discrete"):
        env.step(np.array([0, 6]))


def test_deterministic_across_thread_counts() -> None:
    """Seeds decide the no-op counts and the sticky actions; threads and batching do not."""
    kw = {"num_envs": 4, "seed": 11, "repeat_action_probability": 0.25}
    one = run(envhive.make("Breakout-v5", num_threads=1, **kw), 300)
    two = run(envhive.make("Breakout-v5", num_threads=2, **kw), 300)
    assert_same_runs(one, two)
    other = run(envhive.make("Breakout-v5", num_threads=2, **dict(kw, seed=12)), 300)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(one, other, strict=True))


def test_async_batches_reproduce_each_env() -> None:
    """In async mode each env follows its own sync trajectory, whatever the completion order."""
    kw = {"num_envs": 4, "seed": 5, "noop_max": 30}
    sync = envhive.make("Pong-v5", **kw)
    ref_obs, _ = sync.reset()
    actions = np.random.default_rng(0).integers(0, 6, (60, 4))
    ref = [ref_obs.copy()]
    for a in actions:
        ref.append(sync.step(a)[0].copy())
    env = envhive.make("Pong-v5", batch_size=2, num_threads=2, **kw)
    env.async_reset()
    seen = {i: 0 for i in range(4)}
    while min(seen.values()) < len(actions):
        obs, _, _, _, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            if seen[i] < len(ref):
                np.testing.assert_array_equal(obs[row], ref[seen[i]][i])
        env.send(np.array([actions[min(seen[i], len(actions) - 1), i] for i in ids]), ids)
        for i in ids:
            seen[i] += 1


def test_autoreset_modes_agree() -> None:
    """SAME_STEP's final observation is NEXT_STEP's terminal one, and its reset observation is
    what NEXT_STEP returns one call later; DISABLED refuses to step a finished env."""
    kw = {"num_envs": 1, "seed": 3, "episodic_life": True}
    nxt = envhive.make("Breakout-v5", autoreset_mode="next_step", **kw)
    same = envhive.make("Breakout-v5", autoreset_mode="same_step", **kw)
    np.testing.assert_array_equal(nxt.reset()[0], same.reset()[0])
    rng = np.random.default_rng(0)
    ends = 0
    for t in range(600):
        a = rng.integers(0, 4, 1)
        s_obs, s_r, s_term, s_trunc, s_info = same.step(a)
        n_obs, n_r, n_term, n_trunc, _ = nxt.step(a)
        assert (s_r[0], s_term[0], s_trunc[0]) == (n_r[0], n_term[0], n_trunc[0]), f"step {t}"
        if s_term[0] or s_trunc[0]:
            ends += 1
            np.testing.assert_array_equal(s_info["final_obs"][0], n_obs[0])
            n_obs, n_r, *_ = nxt.step(np.array([0]))  # NEXT_STEP's reset call
            assert n_r[0] == 0
        else:
            assert "final_obs" not in s_info
        np.testing.assert_array_equal(s_obs, n_obs, err_msg=f"step {t}")
    assert ends >= 2

    disabled = envhive.make("Breakout-v5", num_envs=1, autoreset_mode="disabled", episodic_life=True, seed=0)
    disabled.reset()
    for _ in range(2000):
        _, _, term, trunc, _ = disabled.step(rng.integers(0, 4, 1))
        if term[0] or trunc[0]:
            break
    with pytest.raises(ValueError, match="reset it first"):
        disabled.step(np.array([0]))
    disabled.reset(options={"reset_mask": np.array([True])})
    disabled.step(np.array([0]))


def test_reward_clip_and_raw_reward() -> None:
    env = envhive.make("Breakout-v5", num_envs=2, seed=0, reward_clip=True)
    env.reset()
    rng = np.random.default_rng(0)
    raw_total = 0.0
    for _ in range(400):
        _, r, _, _, info = env.step(rng.integers(0, 4, 2))
        assert set(np.unique(r)) <= {-1.0, 0.0, 1.0}
        np.testing.assert_array_equal(r, np.sign(info["reward"]))
        raw_total += info["reward"].sum()
    assert raw_total > 0


def test_zero_discount_on_life_loss() -> None:
    env = envhive.make("Breakout-v5", num_envs=1, seed=0, zero_discount_on_life_loss=True)
    _, info = env.reset()
    lives = info["lives"][0]
    zero = 0
    rng = np.random.default_rng(0)
    for _ in range(1000):
        _, _, term, _, info = env.step(rng.integers(0, 4, 1))
        lost = info["lives"][0] < lives
        assert info["discount"][0] == (0.0 if lost or term[0] else 1.0)
        assert not term[0] or info["terminated"][0]  # no episodic_life: only the game's end terminates
        zero += int(lost)
        lives = info["lives"][0]
    assert zero >= 2


def test_dm_discount_is_zero_on_life_loss() -> None:
    """dm_env facade: a lost life is a MID step with discount 0 (EnvPool's dm mode), the game's end LAST."""
    dm = envhive.make_dm("Breakout-v5", num_envs=1, seed=0, zero_discount_on_life_loss=True)
    ts = dm.reset()
    lives = dm.last_info["lives"][0]
    losses = 0
    rng = np.random.default_rng(0)
    for _ in range(1000):
        ts = dm.step(rng.integers(0, 4, 1))
        info = dm.last_info
        lost = info["lives"][0] < lives and not ts.first()
        if info["terminated"][0]:
            assert ts.step_type[0] == dm_env.StepType.LAST and ts.discount[0] == 0.0
        elif lost:
            assert ts.step_type[0] == dm_env.StepType.MID and ts.discount[0] == 0.0
        else:
            assert ts.discount[0] == 1.0
        losses += int(lost and not info["terminated"][0])
        lives = info["lives"][0]
    assert losses >= 2
    plain = envhive.make_dm("Breakout-v5", num_envs=1, seed=0)
    plain.reset()
    for _ in range(300):  # without the option only the game's end zeroes the discount
        ts = plain.step(rng.integers(0, 4, 1))
        assert ts.discount[0] == (0.0 if plain.last_info["terminated"][0] else 1.0)


def test_time_limit_truncates() -> None:
    env = envhive.make("Pong-v5", num_envs=1, max_episode_steps=50)
    env.reset()
    for t in range(1, 51):
        _, _, term, trunc, info = env.step(np.array([0]))
        assert info["elapsed_step"][0] == t
        assert trunc[0] == (t == 50) and not term[0]


def test_frame_skip_one_observes_the_last_frame() -> None:
    env = envhive.make(
        "Pong-v5",
        num_envs=1,
        frame_skip=1,
        stack_num=3,
        img_height=210,
        img_width=160,
        noop_max=0,
        use_fire_reset=False,
    )
    obs, _ = env.reset()
    assert (obs[0][0] == obs[0][2]).all()
    prev = obs[0]
    for _ in range(30):
        obs, *_ = env.step(np.array([2]))
        np.testing.assert_array_equal(obs[0][:2], prev[1:])
        prev = obs[0]


def test_gymnasium_make_vec_and_dm() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    envhive.register_gymnasium_envs(["Pong-v5"])
    env = gymnasium.make_vec("envhive/Pong-v5", num_envs=2, noop_max=0)
    obs, _ = env.reset()
    assert obs.shape == (2, 4, 84, 84)
    env.close()
    dm = envhive.make_dm("Pong-v5", num_envs=2)
    ts = dm.reset()
    assert ts.observation.shape == (2, 4, 84, 84)


def test_ale_is_linked_into_the_atari_module_only() -> None:
    """ALE is GPL-2.0: only envhive._atari may contain it."""
    modules = {name: importlib.util.find_spec(f"envhive.{name}") for name in ("_native", "_mujoco", "_atari")}
    assert catalog.module_for("Pong-v5").__name__ == "envhive._atari"
    marker = b"A.L.E: Arcade Learning Environment"  # ALE's banner string
    for name, spec in modules.items():
        if spec is None or spec.origin is None:
            continue
        data = Path(spec.origin).read_bytes()
        assert (marker in data) == (name == "_atari"), name


def test_episodic_life_time_limit_spans_the_whole_game() -> None:
    """Under episodic_life a lost life ends the agent's episode, but the game goes on: the time
    limit and elapsed_step count the game's steps across lives (EnvPool's semantics)."""
    # With this seed and policy the game loses a life every 24 steps and ends at step 120.
    env = envhive.make("Breakout-v5", num_envs=1, seed=0, episodic_life=True, max_episode_steps=100)
    env.reset()
    rng = np.random.default_rng(0)
    life_losses = 0
    for t in range(1, 101):
        _, _, term, trunc, info = env.step(rng.integers(0, 4, 1))
        if term[0]:
            assert not info["terminated"][0], "the game itself should outlast the time limit"
            life_losses += 1
            _, _, _, _, info = env.step(np.array([0]))  # NEXT_STEP: continues the same game
            assert info["elapsed_step"][0] == t  # counting is not restarted by the new life
        if trunc[0]:
            break
    assert life_losses >= 3
    assert trunc[0] and info["elapsed_step"][0] == 100
    _, _, _, _, info = env.step(np.array([0]))  # after the time limit: a new game
    assert info["elapsed_step"][0] == 0
