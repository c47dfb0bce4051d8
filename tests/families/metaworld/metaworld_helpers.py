"""The reference side of the Meta-World tests: metaworld 3.1.1 itself, its one MuJoCo 4 line shimmed.

metaworld 3.1.1 pins mujoco 3.3.0; on the mujoco 4.0.0 envhive links it fails only in
SawyerMocapBase.reset_mocap_welds, which writes an 11-value row into eq_data rows that MuJoCo 4
widened to 12. The shim writes the same 11 values into the first 11 columns and leaves the twelfth
as compiled (envhive's C++ side makes the same edit, csrc/envs/metaworld/model_store.cc).

Each ``*_reference`` function returns a Gymnasium VectorEnv whose env i plays what env i of an
envhive pool of that id plays, for ``envhive.testing.assert_matches_reference``. Meta-World's envs
are seeded when they are built (``env.seed(s)``, a constructor's ``seed``, a benchmark's seed):
their ``reset(seed=...)`` ignores the seed, as Meta-World documents, so the harness's
``reference.reset(seed=s)`` changes nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("metaworld")

import gymnasium as gym  # noqa: E402
import metaworld  # noqa: E402  (registers Meta-World's Gymnasium ids)
from gymnasium.vector import AutoresetMode  # noqa: E402
from metaworld.env_dict import (  # noqa: E402
    ALL_V3_ENVIRONMENTS,
    ALL_V3_ENVIRONMENTS_GOAL_HIDDEN,
    ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE,
)
from metaworld.sawyer_xyz_env import SawyerMocapBase  # noqa: E402

import envhive  # noqa: E402
from envhive.testing import LockstepStats, assert_matches_reference  # noqa: E402

WELD = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 5.0])


def _reset_mocap_welds(self: Any) -> None:
    if self.model.nmocap > 0 and self.model.eq_data is not None:
        for i in range(self.model.eq_data.shape[0]):
            if self.model.eq_type[i] == mujoco.mjtEq.mjEQ_WELD:
                self.model.eq_data[i, : WELD.size] = WELD


SawyerMocapBase.reset_mocap_welds = _reset_mocap_welds  # the MuJoCo 4 shim (tests only)
warnings.filterwarnings("ignore", module="gymnasium.utils.passive_env_checker")
warnings.filterwarnings("ignore", message=".*(not within the observation space|maximum and minimum values are equal)")
warnings.filterwarnings("ignore", message=".*precision lowered by casting to float32")  # OneHotWrapper's Box
warnings.filterwarnings("ignore", message=".*Overriding environment.*")


# ------------------------------------------------------------------------------------ single envs
def seeded_env(name: str, seed: int, partially_observable: bool = True) -> Any:
    """Meta-World/<name> and MetaWorld/<Name>-v3: the task class seeded `seed`, a new rand vec from its
    np_random at every reset (_freeze_rand_vec False, seeded_rand_vec True)."""
    env = ALL_V3_ENVIRONMENTS[name]()
    env.seed(seed)
    env._freeze_rand_vec = False
    env.seeded_rand_vec = True
    env._set_task_called = True
    if env._partially_observable != partially_observable:
        env._partially_observable = partially_observable
        env.__dict__.pop("sawyer_observation_space", None)
    return env


def fixed_env(name: str, seed: int, observable: bool) -> Any:
    """Meta-World/goal_observable and goal_hidden (env_name=name)."""
    table = ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE if observable else ALL_V3_ENVIRONMENTS_GOAL_HIDDEN
    suffix = "-goal-observable" if observable else "-goal-hidden"
    return table[name + suffix](seed=seed)


# -------------------------------------------------------------------------------- vector references
class TaskInfosOnly(gym.vector.VectorWrapper):
    """Meta-World's benchmark envs wrap each env in RecordEpisodeStatistics, whose info["episode"]
    (returns, lengths, wall-clock times) is the vector env's bookkeeping, not the task's: dropped, so
    every other info (the task's evaluate_state) is compared."""

    @staticmethod
    def _strip(info: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in info.items() if k not in ("episode", "_episode")}
        if "final_info" in out:
            out["final_info"] = TaskInfosOnly._strip(out["final_info"])
        return out

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return obs, self._strip(info)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return obs, reward, terminated, truncated, self._strip(info)


def sync_reference(
    makers: list[Callable[[], gym.Env]], episode_steps: int | None, mode: AutoresetMode = AutoresetMode.NEXT_STEP
) -> gym.vector.VectorEnv:
    """A SyncVectorEnv in autoreset `mode` of the envs `makers` build, each under a TimeLimit of
    `episode_steps` (None: the env has its own)."""

    def wrapped(make: Callable[[], gym.Env]) -> Callable[[], gym.Env]:
        return lambda: make() if episode_steps is None else gym.wrappers.TimeLimit(make(), episode_steps)

    return TaskInfosOnly(gym.vector.SyncVectorEnv([wrapped(m) for m in makers], autoreset_mode=mode))


def task_reference(
    name: str, seed: int, n: int, episode_steps: int, partially_observable: bool,
    mode: AutoresetMode = AutoresetMode.NEXT_STEP,
) -> gym.vector.VectorEnv:  # fmt: skip
    """Meta-World/<name>: env i is the task class seeded seed + i."""
    return sync_reference(
        [lambda i=i: seeded_env(name, seed + i, partially_observable) for i in range(n)], episode_steps, mode
    )


def fixed_reference(
    name: str, seed: int, n: int, episode_steps: int, observable: bool, mode: AutoresetMode = AutoresetMode.NEXT_STEP
) -> gym.vector.VectorEnv:
    """Meta-World/goal_observable / goal_hidden: env i is the class built with seed + i."""
    return sync_reference([lambda i=i: fixed_env(name, seed + i, observable) for i in range(n)], episode_steps, mode)


def mt1_reference(
    name: str, seed: int, n: int, episode_steps: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP
) -> gym.vector.VectorEnv:
    """Meta-World/MT1: env i is gymnasium.make("Meta-World/MT1", env_name=name, seed=seed + i)."""
    return sync_reference(
        [
            lambda i=i: gym.make("Meta-World/MT1", env_name=name, seed=seed + i, max_episode_steps=episode_steps)
            for i in range(n)
        ],
        None,
        mode,
    )


def benchmark_reference(bench: str, seed: int, episode_steps: int, **kwargs: Any) -> gym.vector.VectorEnv:
    """Meta-World's own vector env of a benchmark ("MT10", "ML10-train", "ML1-test" with env_name=...),
    in its own (same-step) autoreset mode. ML envs come from metaworld.make_ml_envs_train / _test (the
    Gymnasium ids Meta-World-ML1-train and -test both make the test split: their registration's lambda
    binds `split` late) and sample their next task at every reset (envhive's behaviour; Meta-World
    leaves it to a sample_tasks call)."""
    if bench.startswith("ML"):
        name, split = bench.split("-")
        name = kwargs.pop("env_name", name)
        make = metaworld.make_ml_envs_train if split == "train" else metaworld.make_ml_envs_test
        vec = make(name, seed=seed, max_episode_steps=episode_steps, **kwargs)
    else:
        vec = gym.make_vec(f"Meta-World/{bench}", seed=seed, max_episode_steps=episode_steps, **kwargs)
    return with_tasks_sampled_on_reset(vec)


def with_tasks_sampled_on_reset(vec: gym.vector.VectorEnv) -> gym.vector.VectorEnv:
    """The envs of `vec` (a Meta-World vector env), each sampling its next task at every reset where it
    can (the ML envs), in `vec`'s autoreset mode, without Meta-World's episode statistics, batched in
    float64: Meta-World's OneHotWrapper declares its Box without a dtype (float32), so Meta-World's
    vector env rounds its envs' float64 observations to float32 when it batches them (only where the
    one-hot is on); envhive keeps the envs' own float64."""
    envs = list(vec.unwrapped.envs)
    for e in envs:
        with contextlib.suppress(AttributeError):
            e.get_wrapper_attr("toggle_sample_tasks_on_reset")(True)

    def float64(e: gym.Env) -> gym.Env:  # the same observations, declared float64
        low, high = e.observation_space.low.astype(np.float64), e.observation_space.high.astype(np.float64)
        return gym.wrappers.TransformObservation(e, lambda o: o, gym.spaces.Box(low, high, dtype=np.float64))

    envs = [float64(e) for e in envs]
    single = envs[0].observation_space
    spaces = (gym.vector.utils.batch_space(single, len(envs)), single)  # Gymnasium's order: (batched, single)
    mode = vec.metadata["autoreset_mode"]
    return TaskInfosOnly(
        gym.vector.SyncVectorEnv([lambda e=e: e for e in envs], observation_mode=spaces, autoreset_mode=mode)
    )


# -------------------------------------------------------------------------------------- actions
def random_actions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Actions a little outside [-1, 1] too (the env clips the arm's and the reward reads the raw one)."""
    return rng.uniform(-1.2, 1.2, size=(n, 4)).astype(np.float32)


def expert_actions(task: str, rng: np.random.Generator, obs: np.ndarray, noise: float = 0.1) -> np.ndarray:
    """Meta-World's own scripted policy for the task (metaworld.policies), with a little noise: the arm
    reaches, grasps and often succeeds, so contacts, grasp rewards and the success branches run (random
    actions alone rarely touch anything). The policies read the goal, so they succeed where it is observed."""
    from metaworld.policies import ENV_POLICY_MAP

    policy = ENV_POLICY_MAP[task]()
    a = np.stack([policy.get_action(o[:39]) for o in obs]).astype(np.float32)  # without a one-hot
    return (a + rng.normal(0, noise, size=a.shape)).astype(np.float32)


def mixed_policy(tasks: list[str]) -> Callable[[Any, np.random.Generator], np.ndarray]:
    """Env i follows the scripted policy of tasks[i] three steps in four and acts at random on the fourth
    (from the first step), for assert_matches_reference's `policy`."""
    step = itertools.count()

    def policy(obs: Any, rng: np.random.Generator) -> np.ndarray:
        if next(step) % 4:
            return np.concatenate([expert_actions(tasks[i], rng, obs[i : i + 1]) for i in range(len(tasks))])
        return random_actions(rng, len(tasks))

    return policy


def lockstep(
    env: envhive.HiveVectorEnv,
    reference: gym.vector.VectorEnv,
    seed: int,
    steps: int,
    tasks: list[str],
    min_episodes: int = 0,
    action_seed: int = 0,
) -> LockstepStats:
    """assert_matches_reference under Meta-World's scripted policies: observations, rewards, flags and
    every info bit for bit (numpy's log / exp / norm are its own kernels in the C++ tasks,
    csrc/envs/metaworld/numerics.h, so there is no tolerance on any leaf)."""
    return assert_matches_reference(
        env,
        reference,
        seed=seed,
        steps=steps,
        policy=mixed_policy(tasks),
        action_seed=action_seed,
        min_episodes=min_episodes,
    )
