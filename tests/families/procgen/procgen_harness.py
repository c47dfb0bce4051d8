"""The official Procgen engine driven directly: ctypes over the same libenv.so envhive loads, with
the options procgen/env.py builds, none of envhive's code in between (only the file's location is
asked of ``envhive.families.procgen``). One instance is ``ProcgenGym3Env(num=1, num_threads=0,
rand_seed=...)``; ``GymView`` is upstream gym's view of it (gym3's ``ToGymEnv``, the
``procgen-<game>-v0`` env): a step that ends an episode shows the frame before it, and ``reset()``
then the next level's first frame.
"""

from __future__ import annotations

import ctypes
import os
import struct
from dataclasses import dataclass

import numpy as np

from envhive.families import procgen as family

EXPLORATION_LEVEL_SEEDS = {  # procgen/env.py
    "coinrun": 1949448038, "caveflyer": 1259048185, "leaper": 1318677581, "jumper": 1434825276,
    "maze": 158988835, "heist": 876640971, "climber": 1561126160, "ninja": 1123500215,
}  # fmt: skip
MODES = {"easy": 0, "hard": 1, "extreme": 2, "memory": 10}


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


class _TensorType(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128), ("scalar_type", ctypes.c_int), ("dtype", ctypes.c_int),
        ("shape", ctypes.c_int * 16), ("ndim", ctypes.c_int), ("low", ctypes.c_int32), ("high", ctypes.c_int32),
    ]  # fmt: skip


_LIB: ctypes.CDLL | None = None


def library() -> ctypes.CDLL:
    """The engine, loaded as gym3 loads it (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)."""
    global _LIB
    if _LIB is None:
        path, _ = family.engine_files()
        lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL | os.RTLD_DEEPBIND)
        lib.libenv_version.restype = ctypes.c_int
        assert lib.libenv_version() == 1
        lib.libenv_make.restype = ctypes.c_void_p
        lib.libenv_make.argtypes = [ctypes.c_int, _Options]
        lib.libenv_get_tensortypes.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        lib.libenv_set_buffers.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Buffers)]
        for name in ("libenv_act", "libenv_observe", "libenv_close"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        lib.get_state.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.get_state.restype = ctypes.c_int
        _LIB = lib
    return _LIB


def gym3_options(game: str, rand_seed: int, render: bool = False, **kwargs: object) -> dict[str, object]:
    """The options dict ProcgenGym3Env(num=1, env_name=game, num_threads=0, rand_seed=..., **kwargs)
    hands to libenv_make, in its order."""
    kw = dict(kwargs)
    mode = kw.pop("distribution_mode", "hard")
    if mode == "exploration":
        assert "num_levels" not in kw and "start_level" not in kw
        mode, kw["num_levels"], kw["start_level"] = "hard", 1, EXPLORATION_LEVEL_SEEDS[game]
    options: dict[str, object] = {
        "center_agent": bool(kw.pop("center_agent", True)),
        "use_generated_assets": bool(kw.pop("use_generated_assets", False)),
        "use_monochrome_assets": bool(kw.pop("use_monochrome_assets", False)),
        "restrict_themes": bool(kw.pop("restrict_themes", False)),
        "use_backgrounds": bool(kw.pop("use_backgrounds", True)),
        "paint_vel_info": bool(kw.pop("paint_vel_info", False)),
        "distribution_mode": MODES[str(mode)],
        "env_name": game,
        "num_levels": int(kw.pop("num_levels", 0)),  # type: ignore[call-overload]
        "start_level": int(kw.pop("start_level", 0)),  # type: ignore[call-overload]
        "num_actions": 15,
        "use_sequential_levels": bool(kw.pop("use_sequential_levels", False)),
        "debug_mode": int(kw.pop("debug_mode", 0)),  # type: ignore[call-overload]
        "rand_seed": rand_seed,
        "num_threads": 0,
        "render_human": render,
        "resource_root": family.engine_files()[1],
    }
    assert not kw, f"unknown options {kw}"
    return options


class OfficialEngine:
    """One libenv instance (num=1): act(), and what the engine wrote into the buffers."""

    def __init__(self, game: str, rand_seed: int, render: bool = False, **kwargs: object) -> None:
        lib = library()
        self._keep: list[object] = []
        options = gym3_options(game, rand_seed, render, **kwargs)
        items = (_Option * len(options))()
        for item, (name, value) in zip(items, options.items(), strict=True):
            if isinstance(value, str):
                data: object = ctypes.create_string_buffer(value.encode())
                dtype, count = 1, len(value.encode())
            elif isinstance(value, bool):
                data, dtype, count = ctypes.c_uint8(value), 1, 1
            else:
                assert isinstance(value, int) and -(2**31) < value < 2**31
                data, dtype, count = ctypes.c_int32(value), 2, 1
            self._keep.append(data)
            item.name, item.dtype, item.count = name.encode(), dtype, count
            item.data = ctypes.cast(ctypes.byref(data), ctypes.c_void_p)  # type: ignore[arg-type]
        self._keep.append(items)
        self.handle = lib.libenv_make(1, _Options(items, len(options)))
        assert self.handle
        self.obs = np.zeros((64, 64, 3), np.uint8)
        self.rew = np.zeros(1, np.float32)
        self.first = np.zeros(1, np.uint8)
        self.action = np.zeros(1, np.int32)
        n_info = lib.libenv_get_tensortypes(self.handle, 3, None)
        types = (_TensorType * n_info)()
        lib.libenv_get_tensortypes(self.handle, 3, types)
        self.info_arrays: dict[str, np.ndarray] = {}
        for t in types:
            name = t.name.decode()
            shape = tuple(t.shape[i] for i in range(t.ndim))
            self.info_arrays[name] = np.zeros((1, *shape), np.uint8 if t.dtype == 1 else np.int32)
        ob = (ctypes.c_void_p * 1)(self.obs.ctypes.data)
        info = (ctypes.c_void_p * n_info)(*[a.ctypes.data for a in self.info_arrays.values()])
        ac = (ctypes.c_void_p * 1)(self.action.ctypes.data)
        self._buffers = _Buffers(
            ctypes.cast(ob, ctypes.c_void_p), self.rew.ctypes.data, self.first.ctypes.data,
            ctypes.cast(info, ctypes.c_void_p), ctypes.cast(ac, ctypes.c_void_p),
        )  # fmt: skip
        self._keep += [ob, info, ac]
        lib.libenv_set_buffers(self.handle, ctypes.byref(self._buffers))

    def act(self, action: int) -> None:
        self.action[0] = action
        library().libenv_act(self.handle)

    def infos(self) -> dict[str, int]:
        return {k: int(v[0]) for k, v in self.info_arrays.items() if k != "rgb"}

    def render(self) -> np.ndarray:
        library().libenv_observe(self.handle)
        return self.info_arrays["rgb"][0].copy()

    def state(self) -> bytes:
        buf = ctypes.create_string_buffer(2**20)
        n = library().get_state(self.handle, 0, buf, 2**20)
        return buf.raw[:n]

    def timeout(self) -> int:
        """Game::timeout, read from the engine's serialized state (procgen's Game::serialize)."""
        data = self.state()
        off = 4
        (n,) = struct.unpack_from("<i", data, off)
        off += 4 + n  # game_name
        off += 4 * 12 + 4 * 5  # the options, grid_step, level seed range, game_type, game_n
        for _ in range(2):  # level_seed_rand_gen, rand_gen: is_seeded, then the generator as text
            off += 4
            (n,) = struct.unpack_from("<i", data, off)
            off += 4 + n
        off += 4 * 4  # reward, done, level_complete, action
        return int(struct.unpack_from("<i", data, off)[0])

    def close(self) -> None:
        if self.handle:
            library().libenv_close(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()


@dataclass
class Step:
    obs: np.ndarray
    reward: float
    done: bool
    info: dict[str, int]


class GymView:
    """gym3's ToGymEnv over one instance: procgen's own gym env (``procgen-<game>-v0``)."""

    def __init__(self, game: str, rand_seed: int, **kwargs: object) -> None:
        self.engine = OfficialEngine(game, rand_seed, **kwargs)

    def reset(self) -> np.ndarray:
        """ToGymEnv.reset: the current frame (the next level's first, after an end)."""
        return self.engine.obs.copy()

    def force_reset(self) -> np.ndarray:
        """An end the engine's own way (action -1: Game::step's forced reset)."""
        self.engine.act(-1)
        return self.engine.obs.copy()

    def step(self, action: int) -> Step:
        prev = self.engine.obs.copy()
        self.engine.act(action)
        done = bool(self.engine.first[0])
        return Step(prev if done else self.engine.obs.copy(), float(self.engine.rew[0]), done, self.engine.infos())
