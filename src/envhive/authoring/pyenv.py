"""The PyEnv base class: what a user subclasses to write an environment in Python."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
from gymnasium import spaces

from envhive.authoring.declaration import class_name, declaration
from envhive.authoring.registration import announce, register
from envhive.authoring.twin import PyEnvGymnasium


class PyEnv:
    """Base class of an environment written in Python. Subclass it and declare:

    ``observation_space``, ``action_space``
        Gymnasium ``Box`` or ``Discrete`` (Box actions are float32 or float64).
    ``state``
        The per-env state record: ``{"x": float, "pos": (2,), "cell": np.int64, ...}`` (a dtype,
        a shape of float64, or ``(dtype, shape)``). Functions read and write ``s.x``, ``s.pos[0]``.
    ``config``
        Task kwargs with defaults, ``{"name": default}`` or ``{"name": (default, "doc")}``: bool,
        int, float or a fixed-length list of floats, read as ``cfg.name``.
    ``reset(s, rand[, cfg])``, ``step(s, action[, rand[, cfg]]) -> (reward, terminated)``,
    ``observe(s, obs[, cfg])`` (``observe(s[, cfg]) -> int`` for a Discrete observation)
        Plain numpy-style functions (``@staticmethod``), compiled with Numba in nopython mode.
        ``rand`` holds ``reset_randoms`` / ``step_randoms`` uniform [0, 1) draws from the env's
        own seeded generator. A Discrete ``action`` is an int, a Box one an array.
    Optional: ``id`` (task id, e.g. ``"my-pkg/Env-v0"``), ``max_episode_steps`` (0: none),
    ``infos`` (state fields reported in ``info``), ``check_finite`` (default True: NaN in a Box
    observation, or inf outside finite bounds, or a NaN reward is an error), ``boundscheck``
    (default True: out-of-bounds indexing raises instead of corrupting memory).
    """

    id: ClassVar[str | None] = None
    doc: ClassVar[str | None] = None
    observation_space: ClassVar[spaces.Space[Any]]
    action_space: ClassVar[spaces.Space[Any]]
    state: ClassVar[dict[str, Any]] = {}
    config: ClassVar[dict[str, Any]] = {}
    max_episode_steps: ClassVar[int] = 0
    reset_randoms: ClassVar[int] = 0
    step_randoms: ClassVar[int] = 0
    infos: ClassVar[tuple[str, ...]] = ()
    check_finite: ClassVar[bool] = True
    boundscheck: ClassVar[bool] = True

    def __init__(self) -> None:
        raise TypeError(
            f"{class_name(type(self))} is a declaration: build envs with envhive.make({class_name(type(self))}, "
            f"num_envs=...), or {class_name(type(self))}.gymnasium_env() for a single gymnasium.Env"
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass missing a part is an abstract base; it is reported when someone makes it.
        if all(hasattr(cls, attr) for attr in ("observation_space", "action_space", "reset", "step", "observe")):
            announce(declaration(cls))

    @classmethod
    def task_id(cls) -> str:
        """Compile (or load from cache) and register this env; returns its envhive task id."""
        return compile_env(cls)

    @classmethod
    def compile_info(cls) -> dict[str, Any]:
        """Compile if needed; then the fingerprint, the generated glue file, whether the code came
        from the disk cache, and the seconds compile (or cache load) took in this process."""
        compile_env(cls)
        return dict(cls._envhive_glue._envhive_info)  # type: ignore[attr-defined]

    @classmethod
    def gymnasium_env(cls, jit: bool = False, **config: Any) -> gymnasium.Env[Any, Any]:
        """One env as a plain ``gymnasium.Env`` (no pool, no time limit): the same functions run
        as ordinary Python (``jit=False``) or through the compiled code (``jit=True``). Seeded
        alike, it reproduces the pool's trajectories exactly."""
        return PyEnvGymnasium(cls, jit=jit, **config)


def compile_env(cls: type) -> str:
    """Compile ``cls`` (or load it from the cache), register it natively; returns its task id."""
    if not (isinstance(cls, type) and issubclass(cls, PyEnv)) or cls is PyEnv:
        raise TypeError(f"expected a PyEnv subclass, got {cls!r}")
    return register(cls)
