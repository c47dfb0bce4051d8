"""The benchmarks' reference for Procgen tasks: procgen's own gym env on the official engine, through
ctypes, under Gymnasium's API (what Gymnasium's vectorisers and the single-env loop run beside
envhive's pool; `envhive.bench.engines.reference`)."""

from __future__ import annotations

import ctypes
import os

import gymnasium
import numpy as np

from envhive.families.procgen import ENVPOOL_IDS, EXPLORATION_LEVELS, MODE_CODES, engine_files


class _Option(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128),
        ("dtype", ctypes.c_int),
        ("count", ctypes.c_int),
        ("data", ctypes.c_void_p),
    ]


class _Options(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(_Option)), ("count", ctypes.c_int)]


class _Buffers(ctypes.Structure):
    _fields_ = [(n, ctypes.c_void_p) for n in ("ob", "rew", "first", "info", "ac")]


_ENGINE: ctypes.CDLL | None = None


def _engine() -> ctypes.CDLL:
    global _ENGINE
    if _ENGINE is None:
        library, _ = engine_files()
        lib = ctypes.CDLL(library, mode=os.RTLD_NOW | os.RTLD_LOCAL | os.RTLD_DEEPBIND)
        lib.libenv_make.restype = ctypes.c_void_p
        lib.libenv_make.argtypes = [ctypes.c_int, _Options]
        lib.libenv_set_buffers.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Buffers)]
        for name in ("libenv_act", "libenv_observe", "libenv_close"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        _ENGINE = lib
    return _ENGINE


def _int(value: object) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool):
        raise TypeError(f"expected an int, got {value!r}")
    return int(value)


class OfficialProcgenEnv(gymnasium.Env[np.ndarray, np.int64]):
    """The reference the benchmarks run beside envhive: procgen's own gym env (``procgen-<game>-v0``:
    ``ProcgenGym3Env(num=1, num_threads=0)`` behind gym3's ``ToGymEnv``) on the official engine through
    ctypes, under Gymnasium's API. ``reset(seed=s)`` makes the engine with ``rand_seed=s``; a step that
    ends an episode shows the frame before it; ``reset()`` then shows the next level's first frame, or
    ends a level under way with the engine's forced reset (action -1). Task ids and kwargs are
    envhive's (``channel_first`` aside)."""

    metadata = {"render_modes": [], "render_fps": 15}

    def __init__(self, task: str, **kwargs: object) -> None:
        game, mode = ENVPOOL_IDS.get(task) or (task.removeprefix("procgen-").removesuffix("-v0"), "hard")
        self._game = game
        self._options = {"distribution_mode": mode, **kwargs}
        self.observation_space = gymnasium.spaces.Box(0, 255, (64, 64, 3), np.uint8)
        self.action_space = gymnasium.spaces.Discrete(15)
        self._handle: int | None = None
        self._pending = False

    def _make(self, rand_seed: int) -> None:
        self.close()
        lib = _engine()
        o = dict(self._options)
        mode = str(o.pop("distribution_mode"))
        levels, start = _int(o.pop("num_levels", 0)), _int(o.pop("start_level", 0))
        if mode == "exploration":
            mode, levels, start = "hard", 1, EXPLORATION_LEVELS[self._game]
        flags = {  # procgen/env.py's options, in its order
            "center_agent": True, "use_generated_assets": False, "use_monochrome_assets": False,
            "restrict_themes": False, "use_backgrounds": True, "paint_vel_info": False,
        }  # fmt: skip
        options: dict[str, str | bool | int] = {name: bool(o.pop(name, value)) for name, value in flags.items()}
        options.update(
            distribution_mode=MODE_CODES[mode], env_name=self._game, num_levels=levels, start_level=start,
            num_actions=15, use_sequential_levels=bool(o.pop("use_sequential_levels", False)),
            debug_mode=_int(o.pop("debug_mode", 0)), rand_seed=rand_seed, num_threads=0, render_human=False,
            resource_root=engine_files()[1],
        )  # fmt: skip
        if o:
            raise TypeError(f"OfficialProcgenEnv: unknown kwargs {sorted(o)}")
        self._keep: list[ctypes.Array[ctypes.c_char] | ctypes.c_uint8 | ctypes.c_int32] = []
        items = (_Option * len(options))()
        for item, (name, value) in zip(items, options.items(), strict=True):
            data: ctypes.Array[ctypes.c_char] | ctypes.c_uint8 | ctypes.c_int32
            if isinstance(value, str):
                data, item.dtype, item.count = ctypes.create_string_buffer(value.encode()), 1, len(value.encode())
            elif isinstance(value, bool):
                data, item.dtype, item.count = ctypes.c_uint8(value), 1, 1
            else:
                data, item.dtype, item.count = ctypes.c_int32(value), 2, 1
            item.name = name.encode()
            item.data = ctypes.addressof(data)
            self._keep.append(data)
        self._handle = lib.libenv_make(1, _Options(items, len(options)))
        self._obs = np.zeros((64, 64, 3), np.uint8)
        self._rew = np.zeros(1, np.float32)
        self._first = np.zeros(1, np.uint8)
        self._action = np.zeros(1, np.int32)
        # the engine's info order: prev_level_seed, prev_level_complete, level_seed
        self._infos: list[np.ndarray] = [np.zeros(1, np.int32), np.zeros(1, np.uint8), np.zeros(1, np.int32)]
        self._arrays = (
            (ctypes.c_void_p * 1)(self._obs.ctypes.data),
            (ctypes.c_void_p * 3)(*[a.ctypes.data for a in self._infos]),
            (ctypes.c_void_p * 1)(self._action.ctypes.data),
        )
        ob, info, ac = (ctypes.addressof(a) for a in self._arrays)
        self._buffers = _Buffers(ob, self._rew.ctypes.data, self._first.ctypes.data, info, ac)
        lib.libenv_set_buffers(self._handle, ctypes.byref(self._buffers))
        self._pending = True

    def _info(self) -> dict[str, int]:
        prev_seed, complete, seed = (int(a[0]) for a in self._infos)
        return {"level_seed": seed, "prev_level_seed": prev_seed, "prev_level_complete": complete}

    def reset(
        self, *, seed: int | None = None, options: dict[str, object] | None = None
    ) -> tuple[np.ndarray, dict[str, int]]:
        if seed is not None or self._handle is None:
            self._make(seed if seed is not None else int(np.random.default_rng().integers(0, 2**31)))
        elif not self._pending:
            self._action[0] = -1
            _engine().libenv_act(self._handle)
        self._pending = False
        return self._obs.copy(), self._info()

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, int]]:
        prev = self._obs.copy()
        self._action[0] = int(action)
        _engine().libenv_act(self._handle)
        done = bool(self._first[0])
        self._pending = done
        return (prev if done else self._obs.copy()), float(self._rew[0]), done, False, self._info()

    def close(self) -> None:
        if self._handle:
            _engine().libenv_close(self._handle)
            self._handle = None
