"""The whole Craftax-Classic state (map, mob map, player, intrinsics, inventory, every mob slot,
plants, achievements, light level, key, timestep), the reward and the symbolic observation of the
C++ game (csrc/envs/craftax/classic_*.cc) against craftax 1.6.1's jitted single-env reset and
auto-resetting step, bit for bit, every step of random play across episode ends.

Compiled into a probe with ClassicParams::light_reciprocal off: in the single-env program XLA
divides the timestep by the day length, in the vmapped one (envhive's task,
test_craftax_alignment.py) it multiplies by the reciprocal. Compiling craftax's step takes about a
minute on 2 cores the first time (jax's persistent cache, see test_craftax_alignment.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
craftax_env = pytest.importorskip("craftax.craftax_env")

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ["classic_actions.cc", "classic_mobs.cc", "classic_obs.cc", "classic_world.cc"]
FIELDS = ["map", "player", "floats", "inventory", "zombies", "cows", "skeletons", "arrows", "arrow_dirs", "plants"]
FIELDS += ["achievements", "rng_t", "mob_map", "obs"]
ITEMS = ("wood", "stone", "coal", "iron", "diamond", "sapling", "wood_pickaxe", "stone_pickaxe", "iron_pickaxe")
ITEMS += ("wood_sword", "stone_sword", "iron_sword")

jax.config.update(
    "jax_compilation_cache_dir", os.environ.get("ENVHIVE_JAX_CACHE", str(Path.home() / ".cache/envhive-jax"))
)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("c++") or shutil.which("g++")
    assert compiler
    exe = tmp_path_factory.mktemp("craftax") / "classic_step_probe"
    sources = [Path(__file__).with_name("classic_step_probe.cc")] + [ROOT / "csrc/envs/craftax" / s for s in SOURCES]
    subprocess.run(
        [compiler, "-std=c++20", "-O2", "-ffp-contract=off", f"-I{ROOT / 'csrc'}", *map(str, sources), "-o", str(exe)],
        check=True,
    )
    return exe


def fields(st: Any) -> dict[str, list[int]]:
    f: dict[str, list[int]] = {"map": np.asarray(st.map).ravel().tolist()}
    f["player"] = [*np.asarray(st.player_position).tolist()] + [
        int(v)
        for v in (
            st.player_direction,
            st.player_health,
            st.player_food,
            st.player_drink,
            st.player_energy,
            st.is_sleeping,
        )
    ]
    floats = (st.player_recover, st.player_hunger, st.player_thirst, st.player_fatigue, st.light_level)
    f["floats"] = [int(np.float32(v).view(np.uint32)) for v in floats]
    f["inventory"] = [int(getattr(st.inventory, k)) for k in ITEMS]
    for name in ("zombies", "cows", "skeletons", "arrows"):
        m = getattr(st, name)
        f[name] = [
            v
            for i in range(m.mask.shape[0])
            for v in (*np.asarray(m.position[i]).tolist(), int(m.health[i]), int(m.mask[i]), int(m.attack_cooldown[i]))
        ]
    f["arrow_dirs"] = np.asarray(st.arrow_directions).ravel().tolist()
    f["plants"] = [
        v
        for i in range(st.growing_plants_mask.shape[0])
        for v in (
            *np.asarray(st.growing_plants_positions[i]).tolist(),
            int(st.growing_plants_age[i]),
            int(st.growing_plants_mask[i]),
        )
    ]
    f["achievements"] = np.asarray(st.achievements).astype(int).tolist()
    f["rng_t"] = [*np.asarray(st.state_rng).tolist(), int(st.timestep)]
    f["mob_map"] = np.asarray(st.mob_map).astype(int).ravel().tolist()
    return f


def parse(line: str) -> tuple[int, int, dict[str, list[int]]]:
    parts = line.split("|")
    head = [int(v) for v in parts[0].split()]
    out = {"map": head[2:]}
    for name, part in zip(FIELDS[1:], parts[1:], strict=False):
        out[name] = [int(v) for v in part.split()]
    return head[0], head[1], out


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 3])
def test_classic_state_matches_craftax(probe: Path, seed: int) -> None:
    env = craftax_env.make_craftax_env_from_name("Craftax-Classic-Symbolic-v1", auto_reset=True)
    params = env.default_params
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    base = jax.random.PRNGKey(seed)
    reset_key = jax.random.fold_in(base, 1_000_000)
    obs, state = reset(reset_key, params)
    steps = 300
    actions = np.random.default_rng(seed).integers(0, 17, size=steps)
    keys = [np.asarray(jax.random.fold_in(base, t)).tolist() for t in range(steps)]
    r0 = np.asarray(reset_key).tolist()
    lines = (
        subprocess.run(
            [str(probe), str(r0[0]), str(r0[1])],
            input="\n".join(f"{k[0]} {k[1]} {a}" for k, a in zip(keys, actions, strict=True)),
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .split("\n")
    )
    ends = 0
    for t in range(-1, steps):
        reward = done = None
        if t >= 0:
            obs, state, reward, done, _ = step(np.asarray(keys[t], np.uint32), state, int(actions[t]), params)
        ours_reward, ours_done, ours = parse(lines[t + 1])
        ref = fields(state)
        ref["obs"] = np.asarray(obs).view(np.uint32).tolist()
        for name in FIELDS:
            assert ours[name] == ref[name], f"step {t} (action {actions[t] if t >= 0 else None}): {name}"
        if t >= 0:
            assert ours_reward == int(np.float32(reward).view(np.uint32)) and ours_done == int(done), f"step {t}"
            ends += bool(done)
    assert ends >= 1
