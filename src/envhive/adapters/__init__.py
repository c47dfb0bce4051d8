"""Adapters for the trainers people use, one module per trainer, each an optional extra.

    envhive.adapters.sb3       Stable-Baselines3 VecEnv            pip install "envhive[sb3]"
    envhive.adapters.rl_games  rl_games vecenv type + env config   pip install "envhive[rl-games]"
    envhive.adapters.torchrl   TorchRL EnvBase                     pip install "envhive[torchrl]"
    envhive.adapters.rllib     RLlib (new API stack) env ids       pip install "envhive[rllib]"
    envhive.adapters.acme      Acme EnvironmentLoop                pip install "envhive[acme]" + dm-acme (see docs)

Each module imports its trainer at the top, so this package imports none of them: import the
module of the trainer you use. See docs/integrations.md.
"""
