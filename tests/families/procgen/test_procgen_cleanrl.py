"""The env side of CleanRL's ppo_procgen.py on envhive, with the changes docs/envpool-migration.md
lists: envhive.make in place of procgen.ProcgenEnv (no "rgb" dict to unwrap, no attributes to
assign), Gymnasium's vector wrappers in place of gym's, the 5-tuple step. SAME_STEP gives the
script what procgen's ProcgenEnv gave it: the next level's first frame in the step that ends one."""

from __future__ import annotations

import gymnasium
import numpy as np

import envhive


def test_cleanrl_ppo_procgen_env_code():
    num_envs, gamma, seed = 4, 0.999, 1
    # --- the script's env setup, changed lines marked -------------------------------------------
    envs = envhive.make(  # changed: was ProcgenEnv(num_envs=..., env_name=..., ...) + its rgb unwrapping
        "procgen-starpilot-v0", num_envs=num_envs, num_levels=0, start_level=0, distribution_mode="easy",
        autoreset_mode="same_step",
    )  # fmt: skip
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)  # changed: gym -> gymnasium.wrappers.vector
    envs = gymnasium.wrappers.vector.NormalizeReward(envs, gamma=gamma)  # changed: the same
    envs = gymnasium.wrappers.vector.TransformReward(envs, lambda reward: np.clip(reward, -10, 10))  # changed
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete), "only discrete action space is supported"
    assert envs.single_observation_space.shape == (64, 64, 3)  # the Agent reads h, w, c from it
    next_obs, _ = envs.reset(seed=seed)  # changed: (obs, info)
    next_done = np.zeros(num_envs)
    # --- the rollout loop's env calls --------------------------------------------------------------
    rng = np.random.default_rng(0)
    returns = []
    for _ in range(600):
        action = rng.integers(0, envs.single_action_space.n, size=num_envs)
        next_obs, reward, terminations, truncations, info = envs.step(action)  # changed: the 5-tuple
        next_done = np.logical_or(terminations, truncations)  # changed: one done
        if "episode" in info:  # changed: Gymnasium's episode statistics (a mask per env)
            returns += [float(r) for r, ended in zip(info["episode"]["r"], info["_episode"], strict=True) if ended]
        assert next_obs.shape == (num_envs, 64, 64, 3) and next_obs.dtype == np.uint8
        assert np.all(np.abs(reward) <= 10)
    envs.close()
    assert len(returns) >= 2 and next_done.dtype == bool
