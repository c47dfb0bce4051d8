"""The Craftax family (``csrc/envs/craftax/``, module ``envhive._craftax``): craftax 1.6.1's
Craftax-Classic in C++, and everything else the Python side knows about it.

The module needs nothing at run time: jax.random's threefry, XLA's cumsum and the game are C++.
The pixel task draws with the installed craftax package's textures, decoded as craftax decodes
them by the family's resolver (:func:`resolve`, key ``"textures"``) the first time a pixel task is
made (:func:`loop_bench_data` writes the same files for ``craftax_loop_bench``). craftax itself
(with jax and flax) is the reference of the tests, and :func:`bench_jax` its own loop (its step
jitted and vmapped on the CPU) for ``benchmarks/craftax_compare.py``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.families.base import EnvPoolNames, Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

IDS = ("Craftax-Classic-Symbolic-v1", "Craftax-Classic-Pixels-v1")
REFERENCE = "craftax==1.6.1"  # with jax 0.10.2 (the project's jax pin) on the CPU
# What the pixel tasks need at run time: the craftax package's textures (its assets folder), read
# with imageio and Pillow as craftax reads them; not jax (`pip install --no-deps craftax==1.6.1`).
PIXELS_NEED = "pip install --no-deps craftax==1.6.1 imageio pillow"

# The block sizes each game draws at (craftax's BLOCK_PIXEL_SIZE_AGENT: the observation;
# BLOCK_PIXEL_SIZE_HUMAN: its play window, envhive's render()) and the view in blocks.
CLASSIC_BLOCKS = (7, 64)
CLASSIC_VIEW = (7, 9)


def _assets(game: str) -> Path | None:
    """The assets folder of the installed craftax package's ``game`` (``craftax_classic`` or
    ``craftax``), found without importing craftax (which imports jax); None when it is absent."""
    spec = importlib.util.find_spec("craftax")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / game / "assets"
    return folder if folder.is_dir() else None


def _night_noise(rows: int, cols: int) -> np.ndarray:
    """craftax's night-static intensity over a (rows, cols) view in pixels: 1 - exp(-2 r**2) with r
    the distance from the centre on a [-1, 1] grid, computed in float64 in craftax's own array
    layout (columns first, then transposed) and rounded to float32 as jax stores it."""
    across, down = np.meshgrid(np.linspace(-1, 1, rows), np.linspace(-1, 1, cols))
    return np.ascontiguousarray((1 - np.exp(-0.5 * (across**2 + down**2) / (0.5**2)).T).astype(np.float32))


def textures() -> dict[str, np.ndarray]:
    """The images envhive._craftax draws pixels with, from the installed craftax package: each
    asset ``classic/<stem>/<size>`` as craftax's load_texture reads it (imageio, RGBA, then Pillow's
    nearest resize to size x size; uint8, rows first) at every size the renderer uses, and
    ``classic/night_noise/<block>`` (float32). Empty when craftax is not installed (then only the
    symbolic tasks can be made)."""
    classic = _assets("craftax_classic")
    if classic is None:
        return {}
    import imageio.v3 as imageio
    from PIL import Image

    sizes = sorted({s for b in CLASSIC_BLOCKS for s in (b, int(b * 0.8), int(b * 0.6))})
    out: dict[str, np.ndarray] = {}
    for path in sorted(classic.glob("*.png")):
        image = np.asarray(imageio.imread(path, mode="RGBA"), dtype=np.uint8)
        for size in sizes:
            scaled = (
                image
                if size == image.shape[0]
                else np.asarray(Image.fromarray(image).resize((size, size), Image.Resampling.NEAREST))
            )
            out[f"classic/{path.stem}/{size}"] = np.ascontiguousarray(scaled, dtype=np.uint8)
    for block in CLASSIC_BLOCKS:
        out[f"classic/night_noise/{block}"] = _night_noise(CLASSIC_VIEW[0] * block, CLASSIC_VIEW[1] * block)
    return out


def texture_files() -> Files:
    """:func:`textures` as the C++ reads them: (name, int32 rows, columns, channels, dtype (0
    uint8, 1 float32) + the values)."""
    out: Files = []
    for name, a in textures().items():
        shape = a.shape if a.ndim == 3 else (*a.shape, 1)
        header = np.asarray([*shape, 0 if a.dtype == np.uint8 else 1], dtype=np.int32)
        out.append((name, header.tobytes() + np.ascontiguousarray(a).tobytes()))
    return out


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver: ``"textures"`` (:func:`texture_files`; none without craftax)."""
    if key != "textures":
        raise KeyError(f"the craftax family resolves 'textures', not {key!r}")
    return texture_files()


def loop_bench_data(info: TaskInfo, folder: Path) -> dict[str, str]:
    """``craftax_loop_bench``'s data: the texture files written into ``folder`` ("/" as "__")."""
    for name, contents in texture_files():
        (folder / name.replace("/", "__")).write_bytes(contents)
    return {"textures_dir": str(folder)}


def bench_jax(task: str, num_envs: int, seed: int) -> tuple[Any, Any]:
    """craftax's own loop (``benchmarks/craftax_compare.py``): its auto-resetting step
    jitted and vmapped over ``num_envs`` envs (random actions drawn up front), each call one step
    of every env. Returns (advance(n), close)."""
    import os

    import jax
    from craftax.craftax_env import make_craftax_env_from_name

    # XLA compiles craftax's step in about a minute: each measurement is a fresh process, so keep
    # the compiled programs in jax's persistent cache (compilation is not what is timed).
    cache = os.environ.get("ENVHIVE_JAX_CACHE", str(Path.home() / ".cache/envhive-jax"))
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)

    env = make_craftax_env_from_name(task, auto_reset=True)
    params = env.default_params
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    rng = jax.random.PRNGKey(seed)
    rng, sub = jax.random.split(rng)
    _, state = reset(jax.random.split(sub, num_envs), params)
    actions = [jax.numpy.asarray(a) for a in np.random.default_rng(seed).integers(0, 17, size=(64, num_envs))]
    keys = [jax.random.split(k, num_envs) for k in jax.random.split(rng, 64)]
    carry = {"state": state, "i": 0}
    jax.block_until_ready(step(keys[0], state, actions[0], params))  # compile before timing

    def advance(n: int) -> None:
        st, i = carry["state"], carry["i"]
        for _ in range(n):
            _, st, _, _, _ = step(keys[i % 64], st, actions[i % 64], params)
            i += 1
        jax.block_until_ready(st)
        carry["state"], carry["i"] = st, i

    return advance, lambda: None


# EnvPool 1.2.7's Craftax ids, for envhive.envpool: its alias of the symbolic task, and why the others
# are refused.
ENVPOOL_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "Craftax/Classic-Symbolic-v1": ("Craftax-Classic-Symbolic-v1", {}),
}
_MISSING = (
    "envhive's Craftax family has Craftax-Classic-Symbolic-v1 and Craftax-Classic-Pixels-v1 (craftax's own "
    "pixels, not compared with EnvPool's) so far: no full game or EnvPool's AutoReset variants yet"
)
ENVPOOL_MISSING: dict[str, str] = {
    f"{prefix}{name}": _MISSING
    for prefix in ("Craftax-", "Craftax/")
    for name in (
        "Classic-Pixels-v1",
        "Classic-Pixels-AutoReset-v1",
        "Classic-Symbolic-AutoReset-v1",
        "Pixels-v1",
        "Pixels-AutoReset-v1",
        "Symbolic-v1",
        "Symbolic-AutoReset-v1",
    )
    if f"{prefix}{name}" not in IDS
}

FAMILY = Family(
    name="craftax",
    module="envhive._craftax",
    doc="craftax 1.6.1's Craftax-Classic (symbolic and pixel observations)",
    resolver=resolve,
    loop_bench_data=loop_bench_data,
    envpool=EnvPoolNames(aliases=ENVPOOL_ALIASES, not_in_envhive=ENVPOOL_MISSING),
)
