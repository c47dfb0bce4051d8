"""The MuJoCo family: registration, kwargs validation, bad actions, determinism, reset options
(domain randomisation), MuJoCo errors and warnings, and the library it links."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import envhive
from envhive.errors import EnvError
from helpers import MUJOCO_NAMES as NAMES
from helpers import MUJOCO_TASKS

mujoco = pytest.importorskip("mujoco")

# Gymnasium 1.4's registered time limits.
TIME_LIMITS = {"Pusher": 100, "Reacher": 50}

# A model whose arena is too small for a contact: mj_step raises mju_error once the balls land.
SMALL_ARENA_XML = """
<mujoco>
  <size memory="2K"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 1"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="0.05 0 1.3"><freejoint/><geom type="sphere" size=".1"/></body>
  </worldbody>
</mujoco>
"""
# A cart-pole-like model whose actuator blows the simulation up: MuJoCo warns and resets it.
UNSTABLE_XML = """
<mujoco>
  <worldbody>
    <body><joint name="slide" type="slide" axis="1 0 0"/><geom type="sphere" size=".1" mass="1e-9"/>
      <body><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 .5" size=".02" mass="1e-9"/></body>
    </body>
  </worldbody>
  <actuator><motor joint="slide" gear="1e300" ctrllimited="false"/></actuator>
</mujoco>
"""


def random_actions(env: envhive.HiveVectorEnv, n_steps: int, seed: int = 0, rows: int | None = None) -> np.ndarray:
    space = env.single_action_space
    rows = rows or env.num_envs
    rng = np.random.default_rng(seed)
    return rng.uniform(space.low, space.high, size=(n_steps, rows, *space.shape)).astype(np.float32)


def rollout(
    env: envhive.HiveVectorEnv, actions: np.ndarray, options: dict | None = None, seed: int | None = None
) -> list[np.ndarray]:
    obs, _ = env.reset(seed=seed, options=options)
    out = [obs.copy()]
    for a in actions:
        obs, rew, term, trunc, _ = env.step(a)
        out.append(np.concatenate([obs.ravel(), rew, term, trunc]))
    return out


# ---------------------------------------------------------------------------------- registration
def test_all_tasks_registered() -> None:
    ids = envhive.list_envs()
    for task_id in MUJOCO_TASKS:
        assert task_id in ids
        spec = envhive.make_spec(task_id)
        assert spec.family == "mujoco"
        assert spec.max_episode_steps == TIME_LIMITS.get(task_id.split("-")[0], 1000)
        assert spec.observation_space.dtype == np.float64
        assert spec.action_space.dtype == np.float32
        assert {name for name, _ in spec.task.reset_options} == {
            "body_mass_scale",
            "geom_friction_scale",
            "actuator_gear_scale",
        }


def test_v5_kwargs_are_declared_with_gymnasiums_defaults() -> None:
    import inspect

    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    for name in NAMES:
        spec = envhive.make_spec(f"{name}-v5")
        creator = load_env_creator(gymnasium.spec(f"{name}-v5").entry_point)
        params = inspect.signature(creator.__init__).parameters
        for kwarg, p in params.items():
            if kwarg in ("self", "kwargs", "default_camera_config"):
                continue
            assert kwarg in spec.task.defaults, f"{name}-v5: kwarg {kwarg!r} is not declared"
            want = list(p.default) if isinstance(p.default, tuple) else p.default
            assert spec.task.defaults[kwarg] == want, (
                f"{name}-v5: {kwarg} default {spec.task.defaults[kwarg]!r} != {want!r}"
            )


# ---------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"frame_skipp": 5}, TypeError),  # unknown kwarg (with a suggestion)
        ({"frame_skip": "5"}, TypeError),
        ({"frame_skip": 0}, ValueError),
        ({"healthy_z_range": (0.2, 1.0, 3.0)}, ValueError),
        ({"terminate_when_unhealthy": 1}, TypeError),
        ({"xml_file": "no_such_model.xml"}, ValueError),
        ({"main_body": 99}, ValueError),
        ({"ctrl_cost_weight": "high"}, TypeError),
    ],
)
def test_bad_kwargs(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        envhive.make("Ant-v5", **kwargs)


def test_v4_has_v4_kwargs_only() -> None:
    with pytest.raises(TypeError, match="frame_skip"):
        envhive.make("Hopper-v4", frame_skip=2)
    with pytest.raises(TypeError, match="include_cfrc_ext_in_observation"):
        envhive.make("Ant-v4", include_cfrc_ext_in_observation=False)
    assert envhive.make_spec("Ant-v4", use_contact_forces=True).observation_space.shape == (27 + 84,)


def test_bad_xml_is_a_value_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><geom type='nonsense'/></body></worldbody></mujoco>")
    with pytest.raises(ValueError, match="could not load MuJoCo model"):
        envhive.make("InvertedPendulum-v5", xml_file=str(bad))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_actions_are_rejected(bad: float) -> None:
    env = envhive.make("HalfCheetah-v5", num_envs=3)
    env.reset()
    actions = np.zeros((3, 6), dtype=np.float32)
    actions[1, 2] = bad
    with pytest.raises(ValueError, match="env 1 is not finite"):
        env.step(actions)
    obs, *_ = env.step(np.zeros((3, 6), dtype=np.float32))  # the pool is still usable
    assert obs.shape == (3, 17)
    env.close()


def test_bad_action_shapes_and_dtypes() -> None:
    env = envhive.make("Hopper-v5", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((2, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((3, 3), dtype=np.float32))
    with pytest.raises(TypeError):
        env.step(np.full((2, 3), "a"))
    env.step(np.zeros((2, 3), dtype=np.float64))  # converted to float32
    env.close()


# ---------------------------------------------------------------------------------- determinism
# HalfCheetah (Euler integrator) is stepped ahead by idle pool threads (Env::prepare runs
# mj_step1 early); with one thread nothing is prepared, so equality also checks that preparing
# changes nothing. Ant, Humanoid and Hopper (RK4) never prepare.
@pytest.mark.parametrize("task_id", ["Ant-v5", "Humanoid-v4", "Hopper-v5", "HalfCheetah-v5", "HalfCheetah-v4"])
def test_deterministic_across_thread_counts(task_id: str) -> None:
    runs = []
    for threads in (1, 2, 3):
        env = envhive.make(task_id, num_envs=5, num_threads=threads, seed=21, max_episode_steps=60)
        runs.append(rollout(env, random_actions(env, 150)))
        env.close()
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            np.testing.assert_array_equal(a, b)


def test_async_per_env_trajectories_match_sync() -> None:
    """In async mode the batches are in completion order, but each env's stream is the same."""
    n, steps = 6, 80
    sync = envhive.make("Walker2d-v5", num_envs=n, seed=4, max_episode_steps=30)
    acts = random_actions(sync, steps, seed=9)
    expected = rollout(sync, acts)
    sync.close()
    env = envhive.make("Walker2d-v5", num_envs=n, batch_size=2, num_threads=2, seed=4, max_episode_steps=30)
    env.async_reset()
    taken = np.zeros(n, dtype=int)
    obs_seen: dict[int, list[np.ndarray]] = {i: [] for i in range(n)}
    while min(len(v) for v in obs_seen.values()) < steps + 1:
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            obs_seen[int(i)].append(obs[row].copy())
        # Envs past their quota get zero actions, which keeps every batch full.
        actions = np.stack([acts[taken[i], i] if taken[i] < steps else np.zeros(6, np.float32) for i in ids])
        env.send(actions, ids)
        taken[ids] += 1
    env.close()
    obs_dim = expected[0].shape[1]
    for i in range(n):
        np.testing.assert_array_equal(obs_seen[i][0], expected[0][i])
        for t in range(1, steps + 1):
            np.testing.assert_array_equal(obs_seen[i][t], expected[t][i * obs_dim : (i + 1) * obs_dim])


# ---------------------------------------------------------------------------------- reset options
def test_body_mass_scale_changes_dynamics_and_one_restores_them() -> None:
    env = envhive.make("Hopper-v5", num_envs=3, seed=7, max_episode_steps=0)
    acts = random_actions(env, 40)
    base = rollout(env, acts)
    heavy = rollout(env, acts, options={"body_mass_scale": 2.0})
    assert not np.array_equal(base[-1], heavy[-1])
    # Scale 1 returns to the shared model: the same trajectory as a fresh pool with the same seed.
    restored = rollout(env, acts, options={"body_mass_scale": 1.0}, seed=7)
    fresh = envhive.make("Hopper-v5", num_envs=3, seed=7, max_episode_steps=0)
    expected = rollout(fresh, acts)
    for a, b in zip(restored, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    env.close()
    fresh.close()


def test_reset_options_are_per_env() -> None:
    n = 3
    env = envhive.make("HalfCheetah-v5", num_envs=n, seed=1)
    ref = envhive.make("HalfCheetah-v5", num_envs=n, seed=1)
    acts = random_actions(env, 30)
    # Only env 1 gets lighter bodies; env 2 gets per-geom friction (one value per geom).
    ngeom = 9
    friction = np.ones((n, ngeom))
    friction[2] = np.linspace(0.2, 1.8, ngeom)
    opts = {"body_mass_scale": np.array([1.0, 0.5, 1.0]), "geom_friction_scale": friction}
    obs, _ = env.reset(seed=1, options=opts)
    r_obs, _ = ref.reset(seed=1)
    np.testing.assert_array_equal(obs, r_obs)  # the initial state does not depend on the physics
    for a in acts:
        obs, *_ = env.step(a)
        r_obs, *_ = ref.step(a)
    np.testing.assert_array_equal(obs[0], r_obs[0])
    assert not np.array_equal(obs[1], r_obs[1])
    assert not np.array_equal(obs[2], r_obs[2])
    env.close()
    ref.close()


def test_actuator_gear_scale_is_the_gear() -> None:
    """Doubling every gear and halving the actions gives the very same motion (motors: force = gear * ctrl)."""
    a = envhive.make("HalfCheetah-v5", num_envs=2, seed=3)
    b = envhive.make("HalfCheetah-v5", num_envs=2, seed=3)
    acts = random_actions(a, 50)
    a.reset(options={"actuator_gear_scale": 2.0})
    b.reset()
    for act in acts:
        obs_a, *_ = a.step(act / 2)
        obs_b, *_ = b.step(act)
    np.testing.assert_array_equal(obs_a, obs_b)
    a.close()
    b.close()


def test_per_body_vectors_persist_and_follow_the_mask() -> None:
    """Per-body scales, kept across resets until set again; options apply to the masked envs only."""
    nbody = 14  # Ant: the world body and 13 others
    heavy = np.ones((2, nbody))
    heavy[:, 1] = 3.0  # a heavier torso
    a = envhive.make("Ant-v5", num_envs=2, seed=0)
    a.reset(options={"body_mass_scale": heavy})
    a.reset(options={"reset_mask": np.array([True, False]), "body_mass_scale": 1.0})
    b = envhive.make("Ant-v5", num_envs=2, seed=0)
    only_env1 = heavy.copy()
    only_env1[0] = 1.0
    b.reset(options={"body_mass_scale": only_env1})
    b.reset(options={"reset_mask": np.array([True, False])})
    c = envhive.make("Ant-v5", num_envs=2, seed=0)  # no options at all
    c.reset()
    c.reset(options={"reset_mask": np.array([True, False])})
    for act in random_actions(a, 40):
        obs_a, *_ = a.step(act)
        obs_b, *_ = b.step(act)
        obs_c, *_ = c.step(act)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(obs_a[0], obs_c[0])
    assert not np.array_equal(obs_a[1], obs_c[1])
    for env in (a, b, c):
        env.close()


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("body_mass_scale", -1.0, "must be > 0"),
        ("body_mass_scale", np.ones((2, 7)), "one per body"),
        ("geom_friction_scale", np.ones((2, 3)), "one per geom"),
        ("actuator_gear_scale", 0.0, "must be > 0"),
    ],
)
def test_bad_reset_options_raise_env_error(option: str, value: object, match: str) -> None:
    env = envhive.make("Hopper-v5", num_envs=2)
    with pytest.raises(EnvError, match=match) as info:
        env.reset(options={option: value})
    assert info.value.env_id == 0
    obs, _ = env.reset()  # the pool recovers
    assert obs.shape == (2, 11)
    env.close()


def test_unknown_reset_option() -> None:
    env = envhive.make("Hopper-v5")
    with pytest.raises(ValueError, match="unsupported reset option"):
        env.reset(options={"body_density_scale": 2.0})
    env.close()


# ---------------------------------------------------------------------------------- MuJoCo errors
def test_mujoco_error_becomes_env_error(tmp_path: Path) -> None:
    xml = tmp_path / "small_arena.xml"
    xml.write_text(SMALL_ARENA_XML)
    # InvertedPendulum's observation is qpos, qvel: any model with nq >= 2 fits.
    env = envhive.make("InvertedPendulum-v5", xml_file=str(xml), num_envs=2, max_episode_steps=0)
    env.reset()
    with pytest.raises(EnvError, match="MuJoCo error: mj_stackAlloc") as info:
        for _ in range(300):
            env.step(np.zeros((2, 0), dtype=np.float32))
    assert info.value.env_id in (0, 1)
    obs, _ = env.reset()  # the pool is still usable
    assert obs.shape == (2, 26) and np.all(np.isfinite(obs))
    env.close()


def test_no_mujoco_log_file_and_warnings_on_stderr(tmp_path: Path) -> None:
    """No MuJoCo warning writes MUJOCO_LOG.TXT. A model a reference ships (HalfCheetah's, with MuJoCo
    4's settotalmass deprecation) compiles silently in envhive, as the user did not write it; a
    simulation warning of the user's own model reaches stderr once; a warning of another library's
    load (Gymnasium's own HalfCheetah) reaches stderr once too."""
    xml = tmp_path / "unstable.xml"
    xml.write_text(UNSTABLE_XML)
    script = textwrap.dedent(
        f"""
        import sys, numpy as np, envhive
        env = envhive.make("HalfCheetah-v5", num_envs=2)
        env.reset(); env.step(np.zeros((2, 6), np.float32))
        env = envhive.make("InvertedPendulum-v5", xml_file={str(xml)!r}, max_episode_steps=0)
        env.reset()
        for _ in range(20):
            env.step(np.ones((1, 1), np.float32))
        print("-- gymnasium --", file=sys.stderr, flush=True)
        import gymnasium
        gymnasium.make("HalfCheetah-v5").reset(seed=0)  # Gymnasium's loads go through the handlers too
        """
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()
    ours, gymnasiums = out.stderr.split("-- gymnasium --")
    assert "settotalmass" not in ours
    assert ours.count("simulation is unstable") == 1, ours
    assert gymnasiums.count("settotalmass") == 1, gymnasiums


def test_dm_controls_handlers_stay_its_own(tmp_path: Path) -> None:
    """dm_control installs MuJoCo handlers of its own (absl logging; abort on an error) when
    imported. envhive's pools made after it keep envhive's handling for their own MuJoCo work (no
    absl line for the models dm_control ships), and dm_control's physics keeps dm_control's."""
    pytest.importorskip("dm_control")
    script = textwrap.dedent(
        """
        import sys, numpy as np
        from dm_control import suite
        import envhive
        env = envhive.make("CheetahRun-v1", num_envs=2, seed=0)
        env.reset(); env.step(np.zeros((2, 6)))
        env = envhive.make("HalfCheetah-v5", num_envs=2, seed=0)
        env.reset(); env.step(np.zeros((2, 6), np.float32))
        print("-- dm_control --", file=sys.stderr, flush=True)
        suite.load("cheetah", "run").reset()
        """
    )
    env = {**os.environ, "MUJOCO_GL": "egl"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    ours, dm_controls = out.stderr.split("-- dm_control --")
    assert "settotalmass" not in ours, ours
    assert dm_controls.count("WARNING:absl") == 1 and "settotalmass" in dm_controls, dm_controls


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_uses_the_library_of_the_mujoco_package() -> None:
    env = envhive.make("Swimmer-v5")
    env.reset()
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libmujoco" in line}
    env.close()
    assert len(libs) == 1, libs
    assert os.path.realpath(next(iter(libs))).startswith(os.path.realpath(os.path.dirname(mujoco.__file__)))
