"""TorchRL on envhive: a native EnvBase in every autoreset mode, check_env_specs, a collector."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tensordict import TensorDict
from torchrl.collectors import Collector
from torchrl.envs import GymWrapper
from torchrl.envs.utils import check_env_specs, step_mdp

import envhive
from envhive.adapters.torchrl import TorchRLEnv, make_env

MODES = ("disabled", "next_step", "same_step")


def trajectory(mode: str, task: str = "CartPole-v1", steps: int = 120, n: int = 4) -> list[torch.Tensor]:
    """Observations, rewards and dones of a fixed action sequence, TorchRL resetting ended envs."""
    env = TorchRLEnv(envhive.make(task, num_envs=n, seed=3, autoreset_mode=mode), categorical_action_encoding=True)
    rng = np.random.default_rng(0)
    td = env.reset()
    out = [td["observation"].clone()]
    for _ in range(steps):
        td["action"] = torch.as_tensor(rng.integers(0, 2, size=n))
        td, td = env.step_and_maybe_reset(td)
        out += [td["observation"].clone()]
    return out


@pytest.mark.parametrize("mode", MODES)
def test_check_env_specs(mode: str) -> None:
    for task in ("CartPole-v1", "Pendulum-v1", "HalfCheetah-v5"):
        env = TorchRLEnv(envhive.make(task, num_envs=3, seed=0, autoreset_mode=mode, max_episode_steps=30))
        check_env_specs(env, seed=1)
        check_env_specs(env, break_when_any_done="both")


def test_every_autoreset_mode_gives_the_same_data() -> None:
    """TorchRL resets ended envs itself: DISABLED (partial reset), NEXT_STEP (the partial reset
    cancels the pool's pending autoreset) and SAME_STEP (the pool already restarted them) agree."""
    ref = trajectory("disabled")
    for mode in ("next_step", "same_step"):
        for a, b in zip(ref, trajectory(mode), strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=0)


@pytest.mark.parametrize("mode", MODES)
def test_step_outputs_match_the_pool(mode: str) -> None:
    env = TorchRLEnv(envhive.make("CartPole-v1", num_envs=4, seed=5, autoreset_mode=mode))
    pool = envhive.make("CartPole-v1", num_envs=4, seed=5, autoreset_mode="disabled")
    td = env.reset()
    obs, _ = pool.reset()
    np.testing.assert_array_equal(td["observation"].numpy(), obs)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(100):
        a = rng.integers(0, 2, size=4)
        td["action"] = torch.nn.functional.one_hot(torch.as_tensor(a), 2).bool()  # one-hot by default
        td = env.step(td)
        obs, rew, term, trunc, _ = pool.step(a)
        nxt = td["next"]
        np.testing.assert_array_equal(nxt["observation"].numpy(), obs)  # the terminal obs on ended envs
        np.testing.assert_array_equal(nxt["reward"].squeeze(-1).numpy(), rew.astype(np.float32))
        np.testing.assert_array_equal(nxt["terminated"].squeeze(-1).numpy(), term)
        np.testing.assert_array_equal(nxt["truncated"].squeeze(-1).numpy(), trunc)
        assert nxt["reward"].dtype == torch.float32 and nxt["done"].shape == (4, 1)
        done = term | trunc
        ends += int(done.sum())
        td = step_mdp(td)
        if done.any():
            td["_reset"] = torch.as_tensor(done).unsqueeze(-1)
            td = env.reset(td)
            pool_obs, _ = pool.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(td["observation"].numpy(), pool_obs)
            assert not td["done"].any()
    assert ends > 5


def test_observations_are_not_copied() -> None:
    env = make_env("CartPole-v1", num_envs=2)
    td = env.reset()
    td = env.rand_step(td)
    obs = td["next", "observation"]
    assert obs.is_contiguous() and obs.dtype == torch.float32
    # torch shares the array the pool returned: its base is a numpy view of the pool's batch memory.
    assert obs.untyped_storage().nbytes() == 2 * 4 * 4


def test_task_infos_discrete_start_and_box_actions() -> None:
    env = make_env("Breakout-v5", num_envs=2, seed=0, categorical_action_encoding=True)
    td = env.rollout(5)
    assert td["next", "info", "lives"].shape == (2, 5) and td["next", "info", "terminated"].dtype == torch.bool
    assert td["next", "observation"].dtype == torch.uint8
    pend = make_env("Pendulum-v1", num_envs=2, seed=0)
    assert pend.action_spec.shape == (2, 1) and pend.action_spec.dtype == torch.float32
    td = pend.rollout(3)
    assert td["next", "reward"].shape == (2, 3, 1)


def test_set_seed_applies_at_next_reset() -> None:
    env = make_env("CartPole-v1", num_envs=3)
    env.set_seed(17)
    td = env.reset()
    expected = envhive.make("CartPole-v1", num_envs=3, seed=17).reset()[0]
    np.testing.assert_array_equal(td["observation"].numpy(), expected)


def test_collector() -> None:
    env = make_env("CartPole-v1", num_envs=4, seed=0)
    collector = Collector(env, policy=None, frames_per_batch=64, total_frames=640)
    batches = 0
    ends = 0
    for batch in collector:
        assert batch.batch_size == torch.Size([4, 16])
        ends += int(batch["next", "done"].sum())
        # Within a batch an env's next observation is its following observation, except across resets.
        same = batch["next", "observation"][:, :-1] == batch["observation"][:, 1:]
        continued = ~batch["next", "done"][:, :-1, 0]
        assert same.all(-1)[continued].all()
        batches += 1
    collector.shutdown()
    assert batches == 10 and ends > 10


def test_bad_use_gets_clear_errors() -> None:
    with pytest.raises(ValueError, match="async pool.*batch_size=num_envs"):
        TorchRLEnv(envhive.make("CartPole-v1", num_envs=4, batch_size=2))
    with pytest.raises(TypeError, match="make_env"):
        TorchRLEnv(GymWrapper)  # type: ignore[arg-type]
    env = make_env("CartPole-v1", num_envs=2, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="ended its episode.*reset"):
        for _ in range(200):  # DISABLED: stepping past the end without a reset is an error
            env.step(TensorDict({"action": torch.tensor([[True, False], [True, False]])}, batch_size=[2]))


def test_gym_wrapper_works_too_in_same_step_and_disabled() -> None:
    """TorchRL's own GymWrapper accepts envhive pools in the modes it supports."""
    for mode in ("same_step", "disabled"):
        env = GymWrapper(envhive.make("CartPole-v1", num_envs=2, autoreset_mode=mode))
        assert env.rollout(10, break_when_any_done=False).batch_size == torch.Size([2, 10])


def test_env_error_reaches_torchrl_and_the_env_stays_usable() -> None:
    env = make_env("Dummy-v0", num_envs=3, episode_length=0, fail_env=0, fail_step=2, categorical_action_encoding=True)
    td = env.reset()
    td["action"] = torch.zeros(3, dtype=torch.int64)
    td = step_mdp(env.step(td))
    td["action"] = torch.zeros(3, dtype=torch.int64)
    with pytest.raises(envhive.EnvError, match="env 0 raised"):
        env.step(td)
    td = env.step(td)  # DISABLED pool: the adapter resets the failed env before this step
    np.testing.assert_array_equal(td["next", "info", "last_action"].numpy(), [0, 0, 0])
    assert not td["next", "done"].any()
    # Dummy's obs[1] counts its episode's steps: env 0 is one step into a new episode.
    np.testing.assert_array_equal(td["next", "observation"][:, 1].numpy(), [1, 3, 3])


def test_torchrls_own_gymenv_builds_envhive_ids() -> None:
    """TorchRL's GymEnv by id: one env through gymnasium.make("envhive/<id>") (TorchRL probes
    `frameskip`, which envhive refuses with Python's own unexpected-keyword message), and
    `num_envs` through Gymnasium's AsyncVectorEnv, whose spawned workers import envhive only when
    the id names the module ("envhive:envhive/<id>", Gymnasium's module:id form)."""
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    single = GymEnv("envhive/CartPole-v1")
    check_env_specs(single)
    ref = GymEnv("CartPole-v1")
    single.set_seed(4)
    ref.set_seed(4)
    torch.manual_seed(0)  # the same random actions for both rollouts
    mine = single.rollout(30, break_when_any_done=True)
    torch.manual_seed(0)
    theirs = ref.rollout(30, break_when_any_done=True)
    torch.testing.assert_close(mine["next", "observation"], theirs["next", "observation"])
    torch.testing.assert_close(mine["next", "reward"], theirs["next", "reward"])
    single.close()
    ref.close()
    batched = GymEnv("envhive:envhive/CartPole-v1", num_envs=2)
    try:
        assert batched.rollout(5)["next", "observation"].shape == (2, 5, 4)
    finally:
        batched.close()


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.uint8], ids=str)
def test_one_hot_actions_of_any_dtype(dtype) -> None:
    """TorchRL's OneHotCategorical samples one-hot rows as integers or floats, not only bools:
    each steps the envs exactly as bool rows do (a float row viewed as bytes would not)."""
    outs = []
    for as_dtype in (torch.bool, dtype):
        env = TorchRLEnv(envhive.make("CartPole-v1", num_envs=4, seed=2))
        td = env.reset()
        rng = np.random.default_rng(3)
        rows = []
        for _ in range(30):
            a = torch.as_tensor(rng.integers(0, 2, size=4))
            td["action"] = torch.nn.functional.one_hot(a, 2).to(as_dtype)
            td = env.step(td)
            rows.append(td["next", "observation"].clone())
            td = step_mdp(td)
        env.close()
        outs.append(torch.stack(rows))
    torch.testing.assert_close(outs[0], outs[1], rtol=0, atol=0)


def test_a_probabilistic_one_hot_actor_drives_a_collector() -> None:
    """The PPO set-up of TorchRL's tutorials: ProbabilisticActor with OneHotCategorical over the
    env's action spec, in a Collector; every collected action is a valid one-hot row."""
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.modules import MLP, OneHotCategorical, ProbabilisticActor

    env = TorchRLEnv(envhive.make("CartPole-v1", num_envs=4, seed=0))
    torch.manual_seed(0)
    logits = TensorDictModule(MLP(in_features=4, out_features=2, num_cells=[16]), ["observation"], ["logits"])
    actor = ProbabilisticActor(
        logits, in_keys=["logits"], distribution_class=OneHotCategorical, spec=env.action_spec, return_log_prob=True
    )
    collector = Collector(env, actor, frames_per_batch=64, total_frames=128)
    batches = list(collector)
    collector.shutdown()
    assert len(batches) == 2
    for data in batches:
        assert (data["action"].sum(-1) == 1).all()
        assert data["next", "reward"].sum() > 0
