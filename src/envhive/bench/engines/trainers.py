"""The trainers' env APIs (benchmarks/adapters_compare.py): envhive through
envhive.adapters.<trainer> (skrl: its own wrapper) against the trainer's own default vectoriser,
stepping with random actions. The trainers are imported only inside `build`, in the worker process."""

from __future__ import annotations

from itertools import cycle, islice
from typing import Any

from envhive.bench.engines.base import POOL_BATCHES, Builder, Engine, Runner, action_pool, loop, pool_kwargs
from envhive.bench.engines.reference import reference_env_fn


def sb3_venv(task: str, num_envs: int, num_threads: int | None, seed: int) -> Any:
    """envhive.adapters.sb3's VecEnv of `task`."""
    from envhive.adapters.sb3 import make_vec_env

    return make_vec_env(task, **pool_kwargs(num_envs, num_threads, seed))


def _build_sb3_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    venv = sb3_venv(task, num_envs, num_threads, seed)
    venv.reset()
    return Runner(loop(venv.step, action_pool(venv.action_space, num_envs, seed)), venv.close, num_envs)


def _build_sb3_reference(subproc: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        fns = [reference_env_fn(task) for _ in range(num_envs)]
        venv = SubprocVecEnv(fns) if subproc else DummyVecEnv(fns)
        venv.seed(seed)
        venv.reset()
        pids = [p.pid for p in getattr(venv, "processes", []) if p.pid is not None]
        return Runner(loop(venv.step, action_pool(venv.action_space, num_envs, seed)), venv.close, num_envs, pids)

    return build


def _torchrlloop(env: Any, num_envs: int, seed: int) -> Runner:
    import torch

    space = env.action_spec
    torch.manual_seed(seed)
    actions = cycle([space.rand() for _ in range(POOL_BATCHES)])
    td = env.reset()
    step = env.step_and_maybe_reset

    def advance(n: int) -> None:
        nonlocal td
        for a in islice(actions, n):
            td["action"] = a
            _, td = step(td)

    return Runner(advance, env.close, num_envs)


def _build_torchrl_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.torchrl import make_env

    env = make_env(task, categorical_action_encoding=True, **pool_kwargs(num_envs, num_threads, seed))
    return _torchrlloop(env, num_envs, seed)


def _build_torchrl_reference(parallel: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from torchrl.envs import GymWrapper, ParallelEnv, SerialEnv

        make = reference_env_fn(task)

        def make_env() -> Any:
            return GymWrapper(make(), categorical_action_encoding=True)

        env = (ParallelEnv if parallel else SerialEnv)(num_envs, make_env)
        env.set_seed(seed)
        runner = _torchrlloop(env, num_envs, seed)
        runner.child_pids = [w.pid for w in getattr(env, "_workers", []) if getattr(w, "pid", None)]
        return runner

    return build


def _build_rllib_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from gymnasium.wrappers.vector import DictInfoToList

    from envhive.adapters.rllib import make_runner_env

    config: dict[str, Any] = {"num_envs": num_envs}
    if num_threads:
        config["num_threads"] = num_threads
    env = DictInfoToList(make_runner_env(task, config))  # what an RLlib EnvRunner steps
    env.reset(seed=seed)
    return Runner(loop(env.step, action_pool(env.single_action_space, num_envs, seed)), env.close, num_envs)


def _build_rllib_reference(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import gymnasium
    from gymnasium.wrappers.vector import DictInfoToList

    # RLlib's default: gym_env_vectorize_mode="sync", a SyncVectorEnv of single envs.
    env = DictInfoToList(gymnasium.vector.SyncVectorEnv([reference_env_fn(task) for _ in range(num_envs)]))
    env.reset(seed=seed)
    return Runner(loop(env.step, action_pool(env.single_action_space, num_envs, seed)), env.close, num_envs)


def _build_rl_games_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.rl_games import RlGamesVecEnv

    kwargs = pool_kwargs(num_envs, num_threads, seed)
    env = RlGamesVecEnv("envhive", kwargs.pop("num_envs"), env_name=task, **kwargs)
    env.reset()
    space = env.get_env_info()["action_space"]
    return Runner(loop(env.step, action_pool(space, num_envs, seed)), env.close, num_envs)


def _build_rl_games_envpool(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from rl_games.envs.envpool import Envpool

    kwargs: dict[str, Any] = {"seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = Envpool("envpool", num_envs, env_name=task, env_type="gymnasium", **kwargs)
    env.reset()
    return Runner(loop(env.step, action_pool(env.action_space, num_envs, seed)), env.env.close, num_envs)


def _build_tianshou_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.tianshou import make_env

    env = make_env(task, **pool_kwargs(num_envs, num_threads, seed))
    env.reset()
    return Runner(loop(env.step, action_pool(env.action_space, num_envs, seed)), env.close, num_envs)


def _build_tianshou_reference(subproc: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from tianshou.env import DummyVectorEnv, SubprocVectorEnv

        fns = [reference_env_fn(task) for _ in range(num_envs)]
        env = SubprocVectorEnv(fns) if subproc else DummyVectorEnv(fns)
        env.seed(seed)
        env.reset()
        space = env.get_env_attr("action_space", 0)[0]
        pids = [w.process.pid for w in getattr(env, "workers", []) if getattr(w, "process", None) is not None]
        return Runner(loop(env.step, action_pool(space, num_envs, seed)), env.close, num_envs, pids)

    return build


def _skrl_loop(env: Any, num_envs: int, seed: int) -> Runner:
    """skrl's GymnasiumWrapper stepped as its trainers step it: torch actions, one row per env."""
    import torch

    actions = [
        torch.as_tensor(a).reshape(num_envs, -1)
        for a in islice(action_pool(env.action_space, num_envs, seed), POOL_BATCHES)
    ]
    env.reset()
    return Runner(loop(env.step, cycle(actions)), env.close, num_envs)


def _build_skrl_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from skrl.envs.wrappers.torch import wrap_env

    from envhive.pools import make_pool

    pool = make_pool(task, autoreset_mode="same_step", **pool_kwargs(num_envs, num_threads, seed))
    return _skrl_loop(wrap_env(pool, wrapper="gymnasium"), num_envs, seed)


def _build_skrl_reference(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import gymnasium
    from skrl.envs.wrappers.torch import wrap_env

    fns = [reference_env_fn(task) for _ in range(num_envs)]
    pool = gymnasium.vector.SyncVectorEnv(fns, autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    return _skrl_loop(wrap_env(pool, wrapper="gymnasium"), num_envs, seed)


ENGINES = (
    Engine(
        "sb3-envhive",
        "SB3 VecEnv: envhive.adapters.sb3",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_envhive,
        threaded=True,
        label="SB3VecEnv",
    ),
    Engine(
        "sb3-dummy",
        "SB3 DummyVecEnv of gymnasium.make",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_reference(False),
        label="DummyVecEnv",
    ),
    Engine(
        "sb3-subproc",
        "SB3 SubprocVecEnv of gymnasium.make, 1 proc/env",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_reference(True),
        label="SubprocVecEnv",
    ),
    Engine(
        "torchrl-envhive",
        "TorchRL EnvBase: envhive.adapters.torchrl",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_envhive,
        threaded=True,
        label="TorchRLEnv",
    ),
    Engine(
        "torchrl-serial",
        "TorchRL SerialEnv of GymWrapper(gymnasium.make)",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_reference(False),
        label="SerialEnv",
    ),
    Engine(
        "torchrl-parallel",
        "TorchRL ParallelEnv of GymWrapper(gymnasium.make), 1 proc/env",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_reference(True),
        label="ParallelEnv",
    ),
    Engine(
        "rllib-envhive",
        "RLlib EnvRunner env: DictInfoToList(envhive.adapters.rllib)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_envhive,
        threaded=True,
        label="envhive pool",
    ),
    Engine(
        "rllib-gymnasium",
        "RLlib's default: DictInfoToList(SyncVectorEnv of gymnasium.make)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_reference,
        label="SyncVectorEnv",
    ),
    Engine(
        "rl_games-envhive",
        "rl_games vecenv: envhive.adapters.rl_games",
        "rl_games",
        "pip install 'envhive[rl-games]'",
        _build_rl_games_envhive,
        threaded=True,
        label="ENVHIVE",
    ),
    Engine(
        "rl_games-envpool",
        "rl_games' envpool vecenv over EnvPool 1.2.5",
        "envpool",
        "pip install 'envhive[rl-games,bench]'",
        _build_rl_games_envpool,
        threaded=True,
        label="envpool",
    ),
    Engine(
        "tianshou-envhive",
        "Tianshou vector env: envhive.adapters.tianshou",
        "tianshou",
        "pip install 'envhive[tianshou]'",
        _build_tianshou_envhive,
        threaded=True,
        label="TianshouVecEnv",
    ),
    Engine(
        "tianshou-dummy",
        "Tianshou DummyVectorEnv of gymnasium.make",
        "tianshou",
        "pip install 'envhive[tianshou]'",
        _build_tianshou_reference(False),
        label="DummyVectorEnv",
    ),
    Engine(
        "tianshou-subproc",
        "Tianshou SubprocVectorEnv of gymnasium.make, 1 proc/env",
        "tianshou",
        "pip install 'envhive[tianshou]'",
        _build_tianshou_reference(True),
        label="SubprocVectorEnv",
    ),
    Engine(
        "skrl-envhive",
        "skrl's GymnasiumWrapper over an envhive pool (SAME_STEP)",
        "skrl",
        "pip install 'envhive[skrl]'",
        _build_skrl_envhive,
        threaded=True,
        label="GymnasiumWrapper",
    ),
    Engine(
        "skrl-gymnasium",
        "skrl's GymnasiumWrapper over Gymnasium's SyncVectorEnv (SAME_STEP)",
        "skrl",
        "pip install 'envhive[skrl]'",
        _build_skrl_reference,
        label="SyncVectorEnv",
    ),
)
