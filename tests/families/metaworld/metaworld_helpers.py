"""The reference side of the Meta-World tests: metaworld 3.1.1 itself, its one MuJoCo 4 line shimmed.

metaworld 3.1.1 pins mujoco 3.3.0; on the mujoco 4.0.0 envhive links it fails only in
SawyerMocapBase.reset_mocap_welds, which writes an 11-value row into eq_data rows that MuJoCo 4
widened to 12. The shim writes the same 11 values into the first 11 columns and leaves the twelfth
as compiled (envhive's C++ side makes the same edit, csrc/envs/metaworld/model_store.cc).

Each reference maker returns an object with reset() -> obs and step(action) -> (obs, reward,
terminated, truncated, info) that plays what env i of an envhive pool of that id plays.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("metaworld")

import gymnasium as gym  # noqa: E402
import metaworld  # noqa: E402  (registers Meta-World's Gymnasium ids)
from metaworld.env_dict import (  # noqa: E402
    ALL_V3_ENVIRONMENTS,
    ALL_V3_ENVIRONMENTS_GOAL_HIDDEN,
    ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE,
)
from metaworld.sawyer_xyz_env import SawyerMocapBase  # noqa: E402

WELD = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 5.0])


def _reset_mocap_welds(self: Any) -> None:
    if self.model.nmocap > 0 and self.model.eq_data is not None:
        for i in range(self.model.eq_data.shape[0]):
            if self.model.eq_type[i] == mujoco.mjtEq.mjEQ_WELD:
                self.model.eq_data[i, : WELD.size] = WELD


SawyerMocapBase.reset_mocap_welds = _reset_mocap_welds  # the MuJoCo 4 shim (tests only)
warnings.filterwarnings("ignore", module="gymnasium.utils.passive_env_checker")
warnings.filterwarnings("ignore", message=".*Overriding environment.*")

INFO_KEYS = ("success", "near_object", "grasp_success", "grasp_reward", "in_place_reward", "obj_to_target",
             "unscaled_reward")  # fmt: skip


class RawEnv:
    """A bare task class driven the way an envhive id drives it; truncation is the caller's."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def reset(self) -> np.ndarray:
        return self.env.reset()[0]

    def step(self, action: np.ndarray) -> tuple:
        return self.env.step(action)


def seeded_env(name: str, seed: int, partially_observable: bool = True) -> RawEnv:
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
    return RawEnv(env)


def fixed_env(name: str, seed: int, observable: bool) -> RawEnv:
    """Meta-World/goal_observable and goal_hidden (env_name=name)."""
    table = ALL_V3_ENVIRONMENTS_GOAL_OBSERVABLE if observable else ALL_V3_ENVIRONMENTS_GOAL_HIDDEN
    suffix = "-goal-observable" if observable else "-goal-hidden"
    return RawEnv(table[name + suffix](seed=seed))


def mt1_env(name: str, seed: int, max_episode_steps: int) -> RawEnv:
    return RawEnv(gym.make("Meta-World/MT1", env_name=name, seed=seed, max_episode_steps=max_episode_steps))


def benchmark_envs(bench: str, seed: int, max_episode_steps: int, **kwargs: Any) -> list[RawEnv]:
    """The sub-envs of Meta-World's vector env of a benchmark ("MT10", "ML10-train", "ML1-test" with
    env_name=...), each stepped on its own. ML envs come from metaworld.make_ml_envs_train / _test (the
    Gymnasium ids Meta-World-ML1-train and -test both make the test split: their registration's lambda
    binds `split` late) and sample their next task at every reset (envhive's behaviour; Meta-World
    leaves it to a sample_tasks call)."""
    if bench.startswith("ML"):
        name, split = bench.split("-")
        name = kwargs.pop("env_name", name)
        make = metaworld.make_ml_envs_train if split == "train" else metaworld.make_ml_envs_test
        vec = make(name, seed=seed, max_episode_steps=max_episode_steps, **kwargs)
    else:
        vec = gym.make_vec(f"Meta-World/{bench}", seed=seed, max_episode_steps=max_episode_steps, **kwargs)
    envs = list(vec.unwrapped.envs) if hasattr(vec.unwrapped, "envs") else list(vec.envs)
    if bench.startswith("ML"):
        for e in envs:
            e.get_wrapper_attr("toggle_sample_tasks_on_reset")(True)
    return [RawEnv(e) for e in envs]


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


def lockstep(
    env: Any,
    refs: list[RawEnv],
    steps: int,
    episode_steps: int,
    rng: np.random.Generator,
    reward_rtol: float = 0.0,
    tasks: list[str] | None = None,
) -> dict[str, int]:
    """Steps an envhive pool (next-step autoreset) and its references with the same actions; obs,
    reward, flags and infos must agree (reward within reward_rtol where a reward passes through
    np.log / np.exp). Returns counts of what happened (episode ends, successes, grasps)."""
    obs, _ = env.reset()
    ref_obs = [r.reset() for r in refs]
    for i, o in enumerate(ref_obs):
        np.testing.assert_array_equal(obs[i], o, err_msg=f"reset env {i}")
    counts = {"ends": 0, "success": 0, "grasp": 0}
    ended = [False] * len(refs)
    t_in_ep = [0] * len(refs)
    for t in range(steps):
        if tasks is not None and t % 4:
            actions = np.concatenate([expert_actions(tasks[i], rng, obs[i : i + 1]) for i in range(len(refs))])
        else:
            actions = random_actions(rng, len(refs))
        obs, reward, terminated, truncated, info = env.step(actions)
        for i, ref in enumerate(refs):
            where = f"step {t} env {i}"
            if ended[i]:
                o = ref.reset()
                np.testing.assert_array_equal(obs[i], o, err_msg=f"{where} (reset)")
                assert reward[i] == 0.0 and not terminated[i] and not truncated[i], where
                ended[i], t_in_ep[i] = False, 0
                continue
            o, r, te, tr, inf = ref.step(actions[i])
            t_in_ep[i] += 1
            tr = bool(tr) or t_in_ep[i] >= episode_steps
            np.testing.assert_array_equal(obs[i], o, err_msg=where)
            if reward_rtol:
                np.testing.assert_allclose(reward[i], float(r), rtol=reward_rtol, atol=1e-300, err_msg=where)
            else:
                assert reward[i] == float(r), f"{where}: reward {reward[i]!r} != {float(r)!r}"
            assert bool(terminated[i]) == bool(te), where
            assert bool(truncated[i]) == (tr and not te), where
            for k in INFO_KEYS:
                got, want = info[k][i], float(inf[k])
                if reward_rtol and k in ("unscaled_reward", "near_object", "in_place_reward", "grasp_reward"):
                    np.testing.assert_allclose(got, want, rtol=reward_rtol, atol=1e-300, err_msg=f"{where} {k}")
                else:
                    assert got == want, f"{where} {k}: {got!r} != {want!r}"
            counts["success"] += int(float(inf["success"]) == 1.0)
            counts["grasp"] += int(float(inf["grasp_success"]) == 1.0)
            if te or tr:
                ended[i] = True
                counts["ends"] += 1
    return counts
