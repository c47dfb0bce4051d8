"""Gymnasium's Box2D tasks on envhive's native pool (envhive._box2d) against Gymnasium 1.4 itself.

envhive runs Box2D compiled from pybox2d's own C++ sources (the tree of the box2d 2.3.10 wheel
Gymnasium installs) without FMA contraction, builds the same bodies, fixtures and joints in the same
order as Gymnasium through pybox2d, and draws the same np_random numbers: every comparison here is
exact (observations, rewards, flags, final observations, frames), with tolerance 0.

Episodes are kept short where a task's own episodes are long (max_episode_steps on both sides), so
the lock-step runs cross many episode ends and resets in every autoreset mode within seconds.

Frames, and CarRacing's observation (a frame), are pygame-ce 2.5's, what Gymnasium 1.4's box2d
extra installs. Where the `pygame` distribution is installed instead (the RLlib venv's Gymnasium
1.2 pulls it in; both write the `pygame` package), Gymnasium's frames come from pygame 2's
different polygon, line and font rendering: those comparisons are expected to differ there
(strict xfail, so they fail the suite if they ever agree).
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import envhive
from helpers import MODES, assert_same, gym_vec, lockstep, random_actions

pytest.importorskip("Box2D", reason="the reference, Gymnasium's Box2D envs, needs the box2d extra")
try:  # Gymnasium's renderers (and CarRacing's observation) draw with it; the tests that compare
    import pygame  # them skip without it

    _PYGAME = (bool(getattr(pygame, "IS_CE", False)), pygame.version.ver)
except ImportError:
    _PYGAME = None

NUM_ENVS = 3
DRAWN_AS_PYGAME_CE = pytest.mark.xfail(
    _PYGAME is not None and not _PYGAME[0],
    reason=f"envhive draws what pygame-ce 2.5 draws; the installed pygame {_PYGAME and _PYGAME[1]} is not pygame-ce",
    strict=True,
)


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _run(task_id: str, mode: str, seed: int, n_steps: int, policy: Any = None, **kwargs: Any) -> Any:
    hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode, **kwargs)
    ref = _quiet(gym_vec, task_id, NUM_ENVS, mode, **kwargs)
    try:
        return lockstep(hive, ref, mode, seed, n_steps, policy=policy, action_seed=seed)
    finally:
        hive.close()
        ref.close()


# ----------------------------------------------------------------------------------- LunarLander
def _lander_pilot(continuous: bool, noise: float = 0.2) -> Any:
    """Gymnasium's own heuristic pilot with some random actions mixed in: it lands (legs touch the
    ground, the lander falls asleep: +100) as well as crashing and flying off."""
    from gymnasium.envs.box2d.lunar_lander import heuristic

    class Spec:  # what heuristic() reads of the env
        unwrapped = None
        continuous = False

    spec = Spec()
    spec.unwrapped, spec.continuous = spec, continuous

    def policy(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = np.array([heuristic(spec, o) for o in obs])
        noisy = rng.random(len(obs)) < noise
        if continuous:
            actions = np.where(noisy[:, None], rng.uniform(-1.5, 1.5, size=actions.shape), actions)
            return actions.astype(np.float32)
        return np.where(noisy, rng.integers(0, 4, size=len(obs)), actions)

    return policy


@pytest.mark.parametrize("mode", MODES)
def test_lunar_lander_random_play_matches_gymnasium(mode: str) -> None:
    for seed in (0, 1):
        stats = _run("LunarLander-v3", mode, seed, 250)
        assert stats.episodes.min() >= 2, "random play crashes within ~100 steps"


LANDER_KWARGS = [
    {},
    {"continuous": True},
    {"enable_wind": True},
    {"continuous": True, "gravity": -4.5, "enable_wind": True, "wind_power": 19.5, "turbulence_power": 1.9},
]


@pytest.mark.deep
@pytest.mark.parametrize("kwargs", LANDER_KWARGS, ids=["discrete", "continuous", "wind", "all-kwargs"])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_lunar_lander_landings_match_gymnasium(kwargs: dict[str, Any], mode: str) -> None:
    policy = _lander_pilot(kwargs.get("continuous", False))
    landed = 0
    for seed in (3, 4):
        # A 300-step limit ends the episodes of a pilot that hovers too long.
        limited = {**kwargs, "max_episode_steps": 300}
        hive = envhive.make("LunarLander-v3", num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode, **limited)
        ref = _quiet(gym_vec, "LunarLander-v3", NUM_ENVS, mode, **limited)
        contacts: list[np.ndarray] = []

        def watched(obs: np.ndarray, rng: np.random.Generator, contacts: list[np.ndarray] = contacts) -> np.ndarray:
            contacts.append(obs[:, 6:].sum(axis=1))  # legs on the ground
            return policy(obs, rng)

        stats = lockstep(hive, ref, mode, seed, 650, policy=watched, action_seed=seed)
        hive.close()
        ref.close()
        assert stats.episodes.min() >= 1
        landed += int(np.concatenate(contacts).max() == 2)
    assert landed == 2, "the pilot should put both legs down in every run"


def test_lunar_lander_rewards_include_the_landing_bonus() -> None:
    # The episode ends with +100 when the lander comes to rest (Box2D puts it to sleep).
    env = envhive.make("LunarLander-v3", num_envs=4, seed=5)
    ref = _quiet(gym_vec, "LunarLander-v3", 4)
    policy = _lander_pilot(False, noise=0.0)
    obs, _ = env.reset()
    assert_same(obs, ref.reset(seed=5)[0])
    rng = np.random.default_rng(0)
    bonus = 0
    for _ in range(700):
        a = policy(obs, rng)
        obs, rew, term, trunc, _ = env.step(a)
        g = ref.step(a)
        assert_same(obs, g[0])
        assert_same(rew, g[1])
        bonus += int((rew[term] == 100).sum())
    assert bonus >= 2
    env.close()
    ref.close()


def test_lunar_lander_kwarg_changes_the_mdp() -> None:
    # Guards the kwarg tests against a kwarg that is accepted but ignored.
    out = []
    for kwargs in ({}, {"gravity": -2.0}, {"enable_wind": True}):
        env = envhive.make("LunarLander-v3", num_envs=1, seed=0, **kwargs)
        env.reset()
        for _ in range(30):
            obs = env.step(np.array([0]))[0]
        out.append(obs.copy())
        env.close()
    assert not np.array_equal(out[0], out[1]) and not np.array_equal(out[0], out[2])


def test_lunar_lander_spaces_equal_gymnasiums() -> None:
    for kwargs in ({}, {"continuous": True}):
        hive = envhive.make("LunarLander-v3", num_envs=2, **kwargs)
        ref = _quiet(gymnasium.make, "LunarLander-v3", **kwargs)
        assert hive.single_observation_space == ref.observation_space
        assert hive.single_action_space == ref.action_space
        assert hive.single_observation_space.dtype == ref.observation_space.dtype
        hive.close()
        ref.close()
    assert envhive.make_spec("LunarLander-v3").max_episode_steps == gymnasium.spec("LunarLander-v3").max_episode_steps


def test_lunar_lander_continuous_id_matches_gymnasium() -> None:
    for mode in ("next_step", "same_step"):
        _run("LunarLanderContinuous-v3", mode, 8, 150)
    assert envhive.make_spec("LunarLanderContinuous-v3").config["continuous"] is True


# ----------------------------------------------------------------------------------- BipedalWalker
def _walker_pilot(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gymnasium's heuristic walker, one per env, fed with the env's own observation, plus noise
    (it walks, falls, and its lidar sees stumps and stairs)."""
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    global _walkers
    if len(_walkers) != len(obs):
        _walkers = [BipedalWalkerHeuristics() for _ in obs]
    actions = np.stack([w.step_heuristic(o) for w, o in zip(_walkers, obs, strict=True)])
    return (actions + rng.normal(0, 0.3, size=actions.shape)).astype(np.float32)


_walkers: list[Any] = []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_bipedal_walker_random_play_matches_gymnasium(task_id: str, mode: str) -> None:
    # Random torques: the walker falls on its hull (-100) or the 120-step limit ends the episode.
    for seed in (0, 1):
        hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode, max_episode_steps=120)
        ref = _quiet(gym_vec, task_id, NUM_ENVS, mode, max_episode_steps=120)
        stats = lockstep(hive, ref, mode, seed, 260, action_seed=seed)
        hive.close()
        ref.close()
        assert stats.episodes.min() >= 2


@pytest.mark.deep
@pytest.mark.parametrize(("task_id", "kwargs"), [("BipedalWalker-v3", {}), ("BipedalWalker-v3", {"hardcore": True})])
def test_bipedal_walker_walking_matches_gymnasium(task_id: str, kwargs: dict[str, Any]) -> None:
    # Gymnasium's walking heuristic covers the terrain (its obstacles in hardcore mode) and the
    # world kept across resets, which Gymnasium never rebuilds.
    _walkers.clear()
    hive = envhive.make(task_id, num_envs=2, seed=7, max_episode_steps=400, **kwargs)
    ref = _quiet(gym_vec, task_id, 2, max_episode_steps=400, **kwargs)
    stats = lockstep(hive, ref, "next_step", 7, 900, policy=_walker_pilot, action_seed=7)
    hive.close()
    ref.close()
    assert stats.episodes.min() >= 2


def test_bipedal_walker_spaces_equal_gymnasiums() -> None:
    for task_id in ("BipedalWalker-v3", "BipedalWalkerHardcore-v3"):
        hive = envhive.make(task_id, num_envs=2)
        ref = _quiet(gymnasium.make, task_id)
        assert hive.single_observation_space == ref.observation_space
        assert hive.single_action_space == ref.action_space
        assert envhive.make_spec(task_id).max_episode_steps == gymnasium.spec(task_id).max_episode_steps
        hive.close()
        ref.close()
    assert envhive.make_spec("BipedalWalkerHardcore-v3").config["hardcore"] is True


# ----------------------------------------------------------------------------------- CarRacing
def _driver(continuous: bool) -> Any:
    """Mostly full throttle with random steering and some braking: the car leaves the start,
    visits tiles (+1000/N each), skids onto the grass and back."""

    def policy(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n = len(obs)
        if not continuous:
            return rng.choice(5, size=n, p=[0.1, 0.2, 0.2, 0.4, 0.1])
        steer = rng.uniform(-1.2, 1.2, n)
        gas = rng.uniform(0.3, 1.1, n)
        brake = np.where(rng.random(n) < 0.2, rng.uniform(0, 1, n), 0.0)
        return np.stack([steer, gas, brake], axis=1).astype(np.float32)

    return policy


@DRAWN_AS_PYGAME_CE
@pytest.mark.parametrize("mode", MODES)
def test_car_racing_matches_gymnasium(mode: str) -> None:
    # The observation is the 96x96 frame Gymnasium draws with pygame at every step: compared
    # exactly, as are rewards, flags and the lap_finished info.
    pytest.importorskip("pygame")
    hive = envhive.make("CarRacing-v3", num_envs=2, seed=4, autoreset_mode=mode, max_episode_steps=25)
    ref = _quiet(gym_vec, "CarRacing-v3", 2, mode, max_episode_steps=25)
    stats = lockstep(hive, ref, mode, 4, 55, policy=_driver(True), action_seed=4, infos=True)
    hive.close()
    ref.close()
    assert stats.episodes.min() >= 2


@DRAWN_AS_PYGAME_CE
@pytest.mark.parametrize(
    "kwargs",
    [{"continuous": False}, {"domain_randomize": True}, {"lap_complete_percent": 0.0}],
    ids=["discrete", "domain-randomize", "lap-at-once"],
)
def test_car_racing_kwargs_match_gymnasium(kwargs: dict[str, Any]) -> None:
    # lap_complete_percent=0: touching the start tile (at reset) completes the lap, so every
    # episode ends at its first step with lap_finished.
    pytest.importorskip("pygame")
    hive = envhive.make("CarRacing-v3", num_envs=2, seed=6, max_episode_steps=20, **kwargs)
    ref = _quiet(gym_vec, "CarRacing-v3", 2, max_episode_steps=20, **kwargs)
    stats = lockstep(hive, ref, "next_step", 6, 42, policy=_driver(kwargs.get("continuous", True)), infos=True)
    hive.close()
    ref.close()
    if kwargs.get("lap_complete_percent") == 0.0:
        assert stats.terminated.min() >= 10


@DRAWN_AS_PYGAME_CE
def test_car_racing_keeps_its_colours_on_request() -> None:
    # reset(options={"randomize": False}) keeps the last colours (domain_randomize only).
    pytest.importorskip("pygame")
    hive = envhive.make("CarRacing-v3", num_envs=2, seed=3, domain_randomize=True)
    ref = _quiet(gym_vec, "CarRacing-v3", 2, domain_randomize=True)
    assert_same(hive.reset()[0], ref.reset(seed=3)[0])
    assert_same(hive.reset(options={"randomize": False})[0], ref.reset(options={"randomize": False})[0])
    assert_same(hive.reset(options={"randomize": True})[0], ref.reset(options={"randomize": True})[0])
    hive.close()
    ref.close()


def test_car_racing_spaces_equal_gymnasiums() -> None:
    pytest.importorskip("pygame")
    for kwargs in ({}, {"continuous": False}):
        hive = envhive.make("CarRacing-v3", num_envs=1, **kwargs)
        ref = _quiet(gymnasium.make, "CarRacing-v3", **kwargs)
        assert hive.single_observation_space == ref.observation_space
        assert hive.single_action_space == ref.action_space
        hive.close()
        ref.close()
    assert envhive.make_spec("CarRacing-v3").max_episode_steps == gymnasium.spec("CarRacing-v3").max_episode_steps


# ----------------------------------------------------------------------------------- frames
def _frames_match(task_id: str, seed: int, n_steps: int, every: int, policy: Any, **kwargs: Any) -> int:
    """Step Gymnasium's env and envhive's in lock step; compare the frames every `every` steps
    (frames not drawn in between matter: LunarLander's particles age only when a frame is drawn)."""
    pytest.importorskip("pygame")
    ref = _quiet(gymnasium.make, task_id, render_mode="rgb_array", **kwargs)
    hive = envhive.make(task_id, num_envs=1, seed=seed, render_mode="rgb_array", **kwargs)
    try:
        g_obs, _ = ref.reset(seed=seed)
        h_obs, _ = hive.reset()
        rng = np.random.default_rng(seed)
        compared = 0
        for t in range(n_steps):
            assert_same(h_obs[0], g_obs, what=f"{task_id} state at step {t}")
            if t % every == 0:
                frame = hive.render()[0]
                np.testing.assert_array_equal(frame, ref.render(), err_msg=f"{task_id} seed {seed} frame at step {t}")
                compared += 1
            action = policy(h_obs, rng)
            g_obs, _, g_term, g_trunc, _ = ref.step(action[0])
            h_obs, *_ = hive.step(action)
            if g_term or g_trunc:
                break
        return compared
    finally:
        hive.close()
        ref.close()


@DRAWN_AS_PYGAME_CE
@pytest.mark.parametrize(("kwargs", "every"), [({}, 1), ({"continuous": True}, 3)], ids=["discrete", "continuous"])
def test_lunar_lander_frames_equal_gymnasiums(kwargs: dict[str, Any], every: int) -> None:
    policy = _lander_pilot(kwargs.get("continuous", False))
    compared = sum(_frames_match("LunarLander-v3", seed, 400, every, policy, **kwargs) for seed in (0, 7))
    assert compared >= 40


@DRAWN_AS_PYGAME_CE
@pytest.mark.deep
@pytest.mark.parametrize(("task_id", "every"), [("BipedalWalker-v3", 4), ("BipedalWalkerHardcore-v3", 3)])
def test_bipedal_walker_frames_equal_gymnasiums(task_id: str, every: int) -> None:
    # Frames every few steps as the walker walks (the frame scrolls with it; the lidar ray drawn
    # advances per frame).
    _walkers.clear()
    compared = sum(_frames_match(task_id, seed, 240, every, _walker_pilot) for seed in (0, 3))
    assert compared >= 40


@DRAWN_AS_PYGAME_CE
@pytest.mark.deep
def test_car_racing_frames_equal_gymnasiums() -> None:
    # render(): the 600x400 frame, with the skid marks the observation does not show.
    compared = sum(_frames_match("CarRacing-v3", seed, 60, 6, _driver(True)) for seed in (0, 1))
    assert compared >= 16


# ----------------------------------------------------------------------------------- bad input
def test_lunar_lander_bad_actions_and_kwargs() -> None:
    env = envhive.make("LunarLander-v3", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match=r"action 4 for env 1 .*Discrete\(4\)"):
        env.step(np.array([0, 4]))
    with pytest.raises(ValueError, match=r"action -1 for env 0"):
        env.step(np.array([-1, 0]))
    cont = envhive.make("LunarLander-v3", num_envs=2, continuous=True)
    cont.reset()
    with pytest.raises(ValueError, match="env 1.*not finite"):
        cont.step(np.array([[0.0, 0.0], [np.nan, 0.5]], dtype=np.float32))
    # the pool is still usable after refused actions
    assert cont.step(np.zeros((2, 2), dtype=np.float32))[0].shape == (2, 8)
    with pytest.raises(ValueError, match="gravity .* must be between -12 and 0"):
        envhive.make("LunarLander-v3", gravity=3.0)
    with pytest.raises(TypeError, match="continuous"):
        envhive.make("LunarLander-v3", continuous="yes")
    env.close()
    cont.close()


# ----------------------------------------------------------------------------------- facades
def test_every_facade_runs_the_native_tasks() -> None:
    from envhive.process import ProcessBackend

    for task_id in ("LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3", "CarRacing-v3"):
        assert envhive.backend_for(task_id) == "native"
    native = envhive.make("LunarLander-v3", num_envs=2, seed=5)
    vec = gymnasium.make_vec("envhive/LunarLander-v3", num_envs=2)
    assert isinstance(vec.unwrapped, envhive.HiveVectorEnv)
    assert_same(vec.reset(seed=5)[0], native.reset()[0])
    single = gymnasium.make("envhive/BipedalWalker-v3")
    reference = _quiet(gymnasium.make, "BipedalWalker-v3")
    assert_same(single.reset(seed=1)[0], reference.reset(seed=1)[0])
    action = np.array([0.5, -0.5, 1.0, 0.0], dtype=np.float32)
    assert_same(single.step(action)[0], reference.step(action)[0])
    dm = envhive.make_dm("LunarLanderContinuous-v3", num_envs=2, seed=5)
    assert dm.reset().observation.shape == (2, 8)
    # backend="process" still runs Gymnasium's own Python env of the id
    process = envhive.make("LunarLander-v3", backend="process", num_envs=2, num_workers=1)
    assert isinstance(process.backend, ProcessBackend)
    assert_same(process.reset(seed=5)[0], native.reset(seed=5)[0])
    for env in (native, vec, single, reference, dm, process):
        env.close()


@pytest.mark.parametrize(
    ("envpool_id", "task_id", "kwargs"),
    [
        ("LunarLander-v2", "LunarLander-v3", {}),
        ("LunarLanderContinuous-v2", "LunarLanderContinuous-v3", {}),
        ("BipedalWalkerHardcore-v3", "BipedalWalker-v3", {"hardcore": True}),
        ("CarRacing-v2", "CarRacing-v3", {"lap_complete_percent": 0.5}),
    ],
)
def test_envpool_ids_run_the_same_mdp(envpool_id: str, task_id: str, kwargs: dict[str, Any]) -> None:
    import envhive.envpool as envpool

    pool_kwargs = {k: v for k, v in kwargs.items() if k != "hardcore"}
    ours = envpool.make_gymnasium(envpool_id, num_envs=2, seed=3, **pool_kwargs)
    hive = envhive.make(task_id, num_envs=2, seed=3, **kwargs)
    assert_same(ours.reset()[0], hive.reset()[0])
    rng = np.random.default_rng(0)
    for _ in range(5 if task_id.startswith("Car") else 30):
        actions = random_actions(hive.single_action_space, 2, rng, overshoot=1.0)
        a, b = ours.step(actions), hive.step(actions)
        assert_same(a[0], b[0])
        assert_same(a[1], b[1].astype(a[1].dtype))  # EnvPool's rewards are float32
    ours.close()
    hive.close()
