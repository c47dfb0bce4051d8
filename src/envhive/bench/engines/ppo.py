"""The trainers' PPO (benchmarks/adapters_compare.py --part train): one call is one PPO iteration
(collect a rollout, update), worth its rollout's env steps; envhive vs the trainer's default.
Torch runs one thread on both sides (small MLPs; no spinning thread pool beside the envs)."""

from __future__ import annotations

from typing import Any

from envhive.bench.engines.base import Builder, Engine, Runner, pool_kwargs
from envhive.bench.engines.reference import gymnasium_id, reference_env_fn
from envhive.bench.engines.trainers import sb3_venv

SB3_PPO: dict[str, Any] = {
    "n_steps": 32,
    "batch_size": 256,
    "gae_lambda": 0.8,
    "gamma": 0.98,
    "n_epochs": 20,
    "ent_coef": 0.0,
}


def _build_sb3_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import torch
        from stable_baselines3 import PPO

        torch.set_num_threads(1)
        if hive:
            venv = sb3_venv(task, num_envs, num_threads, seed)
        else:
            from stable_baselines3.common.vec_env import DummyVecEnv

            venv = DummyVecEnv([reference_env_fn(task) for _ in range(num_envs)])
        model = PPO("MlpPolicy", venv, seed=seed, device="cpu", **SB3_PPO)
        rollout = int(SB3_PPO["n_steps"]) * num_envs

        def advance(n: int) -> None:
            model.learn(total_timesteps=n * rollout, reset_num_timesteps=False)

        return Runner(advance, venv.close, rollout)

    return build


def rl_games_ppo_params(env_name: str, env_config: dict[str, Any], num_actors: int, seed: int) -> dict[str, Any]:
    """rl_games' own configs/ppo_cartpole.yaml on CPU (torch.compile off, one torch thread)."""
    return {
        "params": {
            "seed": seed,
            "torch_threads": 1,
            "algo": {"name": "a2c_discrete"},
            "model": {"name": "discrete_a2c"},
            "network": {
                "name": "actor_critic",
                "separate": True,
                "space": {"discrete": {}},
                "mlp": {"units": [32, 32], "activation": "relu", "initializer": {"name": "default"}},
            },
            "config": {
                "name": "bench",
                "env_name": env_name,
                "env_config": env_config,
                "reward_shaper": {"scale_value": 0.1},
                "normalize_advantage": True,
                "gamma": 0.99,
                "tau": 0.9,
                "learning_rate": 2e-4,
                "score_to_win": 1e9,
                "grad_norm": 1.0,
                "entropy_coef": 0.01,
                "truncate_grads": True,
                "e_clip": 0.2,
                "clip_value": True,
                "num_actors": num_actors,
                "horizon_length": 32,
                "minibatch_size": 64,
                "mini_epochs": 4,
                "critic_coef": 1,
                "lr_schedule": None,
                "kl_threshold": 0.008,
                "normalize_input": False,
                "device": "cpu",
                "multi_gpu": False,
                "max_epochs": 10**9,
                "train_dir": "rl_games_runs",
                "torch_compile": False,
            },
        }
    }


def _build_rl_games_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from rl_games.torch_runner import Runner as RlGamesRunner

        if hive:
            from envhive.adapters import rl_games as hive_rl_games

            env_name = hive_rl_games.register()
            env_config: dict[str, Any] = {"env_name": task}
            if num_threads:
                env_config["num_threads"] = num_threads
        else:
            env_name, env_config = "envpool", {"env_name": task, "env_type": "gymnasium"}
        runner = RlGamesRunner()
        runner.load(rl_games_ppo_params(env_name, env_config, num_envs, seed))
        agent = runner.algo_factory.create(runner.algo_name, base_name="run", params=runner.params)
        agent.init_tensors()
        agent.obs = agent.env_reset()
        agent.curr_frames = agent.batch_size_envs

        def advance(n: int) -> None:
            for _ in range(n):
                agent.update_epoch()
                agent.train_epoch()
                agent.dataset.update_values_dict(None)

        return Runner(advance, lambda: None, agent.horizon_length * num_envs)

    return build


RLLIB_BATCH = 1000


def _build_rllib_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        if hive:
            import envhive.adapters.rllib  # noqa: F401  (registers the envhive/ ids for the EnvRunners)

            env, mode = f"envhive/{task}", "vector_entry_point"
        else:
            env, mode = gymnasium_id(task), "sync"  # RLlib's default vectorisation
        config = (
            PPOConfig()
            .environment(env)
            .env_runners(
                num_env_runners=2,
                num_envs_per_env_runner=num_envs // 2,
                gym_env_vectorize_mode=mode,
                num_cpus_per_env_runner=0.5,
            )
            .learners(num_cpus_per_learner=0.5)
            .training(train_batch_size_per_learner=RLLIB_BATCH, minibatch_size=250, num_epochs=5)
            .debugging(seed=seed)
        )
        algo = config.build_algo()
        algo.train()  # the first iteration includes the runners' start-up

        def advance(n: int) -> None:
            for _ in range(n):
                algo.train()

        def close() -> None:
            algo.stop()
            ray.shutdown()

        return Runner(advance, close, RLLIB_BATCH)

    return build


TORCHRL_PPO = {"frames_per_batch": 1024, "epochs": 4, "minibatch": 256}


def _build_torchrl_ppo(hive: bool) -> Builder:
    """A minimal TorchRL PPO (TorchRL has no PPO trainer class): its Collector, GAE and ClipPPOLoss."""

    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import torch
        from tensordict.nn import TensorDictModule
        from torchrl.collectors import Collector
        from torchrl.envs import GymWrapper, SerialEnv
        from torchrl.modules import MLP, OneHotCategorical, ProbabilisticActor, ValueOperator
        from torchrl.objectives import ClipPPOLoss
        from torchrl.objectives.value import GAE

        torch.set_num_threads(1)
        torch.manual_seed(seed)
        if hive:
            from envhive.adapters.torchrl import make_env

            env = make_env(task, **pool_kwargs(num_envs, num_threads, seed))
        else:
            make = reference_env_fn(task)
            env = SerialEnv(num_envs, lambda: GymWrapper(make()))  # one-hot actions, as make_env
            env.set_seed(seed)
        n_obs = env.observation_spec["observation"].shape[-1]
        n_act = env.action_spec.shape[-1]
        logits = TensorDictModule(
            MLP(in_features=n_obs, out_features=n_act, num_cells=[64, 64]), ["observation"], ["logits"]
        )
        actor = ProbabilisticActor(
            logits, in_keys=["logits"], distribution_class=OneHotCategorical, spec=env.action_spec, return_log_prob=True
        )
        critic = ValueOperator(MLP(in_features=n_obs, out_features=1, num_cells=[64, 64]), in_keys=["observation"])
        loss = ClipPPOLoss(actor, critic, entropy_coeff=0.0)
        gae = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
        optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
        frames = TORCHRL_PPO["frames_per_batch"]
        collector = Collector(env, actor, frames_per_batch=frames, total_frames=-1)
        batches = iter(collector)

        def advance(n: int) -> None:
            for _ in range(n):
                data = next(batches)
                with torch.no_grad():
                    gae(data)
                flat = data.reshape(-1)
                for _ in range(TORCHRL_PPO["epochs"]):
                    for idx in torch.randperm(flat.numel()).split(TORCHRL_PPO["minibatch"]):
                        losses = loss(flat[idx])
                        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                        optim.zero_grad()
                        total.backward()
                        optim.step()
                collector.update_policy_weights_()

        return Runner(advance, collector.shutdown, frames)

    return build


ENGINES = (
    Engine(
        "sb3-ppo-envhive",
        "SB3 PPO on envhive.adapters.sb3",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_ppo(True),
        threaded=True,
        label="PPO, SB3VecEnv",
    ),
    Engine(
        "sb3-ppo-dummy",
        "SB3 PPO on DummyVecEnv (SB3's make_vec_env default)",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_ppo(False),
        label="PPO, DummyVecEnv",
    ),
    Engine(
        "rl_games-ppo-envhive",
        "rl_games PPO on the ENVHIVE vecenv",
        "rl_games",
        "pip install 'envhive[rl-games]'",
        _build_rl_games_ppo(True),
        threaded=True,
        label="PPO, ENVHIVE",
    ),
    Engine(
        "rl_games-ppo-envpool",
        "rl_games PPO on its envpool vecenv (EnvPool 1.2.5)",
        "envpool",
        "pip install 'envhive[rl-games,bench]'",
        _build_rl_games_ppo(False),
        label="PPO, envpool",
    ),
    Engine(
        "rllib-ppo-envhive",
        "RLlib PPO, 2 EnvRunners on envhive ids (vector_entry_point)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_ppo(True),
        label="PPO, envhive",
    ),
    Engine(
        "rllib-ppo-gymnasium",
        "RLlib PPO, 2 EnvRunners, RLlib's default sync vectorisation",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_ppo(False),
        label="PPO, SyncVectorEnv",
    ),
    Engine(
        "torchrl-ppo-envhive",
        "TorchRL Collector + ClipPPOLoss on envhive.adapters.torchrl",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_ppo(True),
        threaded=True,
        label="PPO, TorchRLEnv",
    ),
    Engine(
        "torchrl-ppo-serial",
        "TorchRL Collector + ClipPPOLoss on SerialEnv of GymWrapper",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_ppo(False),
        label="PPO, SerialEnv",
    ),
)
