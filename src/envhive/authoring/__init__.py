"""Environments written in Python, compiled to native code, run on envhive's thread pool.

    import envhive
    import numpy as np
    from gymnasium import spaces
    from envhive.authoring import PyEnv

    class Walk(PyEnv):
        id = "my-pkg/Walk-v0"
        observation_space = spaces.Box(-10.0, 10.0, shape=(1,), dtype=np.float32)
        action_space = spaces.Discrete(2)
        state = {"x": float}
        config = {"step_size": 0.5}
        max_episode_steps = 100
        reset_randoms = 1

        @staticmethod
        def reset(s, rand, cfg):
            s.x = rand[0] - 0.5

        @staticmethod
        def step(s, action, rand, cfg):
            s.x += cfg.step_size if action == 1 else -cfg.step_size
            return -abs(s.x), abs(s.x) > 10.0

        @staticmethod
        def observe(s, obs, cfg):
            obs[0] = s.x

    env = envhive.make(Walk, num_envs=64)      # or envhive.make("my-pkg/Walk-v0", ...)

The class is a declaration: it is never instantiated. On the first ``make`` envhive compiles
``reset``/``step``/``observe`` with Numba (nopython, nogil; the ``authoring`` extra), wraps them in
C callables, and registers a native task whose envs call those function pointers from the pool's
threads: no GIL, no Python object per step. Compiled code is cached on disk
(``ENVHIVE_CACHE_DIR``, default ``~/.cache/envhive/pyenv``), keyed by a fingerprint of the
functions, the helpers and constants they use, and the declarations. See docs/python-envs.md.

The package, bottom up: signatures (the three functions' parameter orders), declaration
(validation), fingerprint, compiler (glue, Numba, disk cache), registration (Gymnasium ids,
the native task), twin (the same functions as plain Python; failure replays), pyenv (the class).
"""

from envhive.authoring.compiler import CompileError, cache_dir, clear_cache
from envhive.authoring.declaration import uniform
from envhive.authoring.pyenv import PyEnv, compile_env
from envhive.authoring.registration import resolve_task
from envhive.authoring.twin import FailureReplay, PyEnvGymnasium, last_failures, replay_failure

__all__ = [
    "CompileError",
    "FailureReplay",
    "PyEnv",
    "PyEnvGymnasium",
    "cache_dir",
    "clear_cache",
    "compile_env",
    "last_failures",
    "replay_failure",
    "resolve_task",
    "uniform",
]
