"""Memory over make/close cycles of DeepMind Control pools (issue 40): malloc's bytes in use and the
process's RSS every ``--every`` cycles, for pools whose envs draw frames (``from_pixels``), pools
that render (``render_mode="rgb_array"`` + ``render()``), and dog pools (a ~430 MB model each).

    python benchmarks/dmc_memory_cycles.py --kind pixels --cycles 100

Prints one line per sample and a summary line; ``--json`` writes the samples. Run it with the
interpreter of the build to measure (main's venv for "before")."""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import time

import numpy as np

import envhive


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_size_t)
        for n in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_libc = ctypes.CDLL("libc.so.6")
_libc.mallinfo2.restype = _MallInfo2


def in_use_mb() -> float:
    """malloc's bytes in use: small blocks (uordblks) and mmapped ones (hblkhd)."""
    info = _libc.mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def cycle(kind: str, num_envs: int, threads: int) -> None:
    if kind == "pixels":
        env = envhive.make("CartpoleBalance-v1", num_envs=num_envs, num_threads=threads, from_pixels=True)
        env.reset()
        for _ in range(3):
            env.step(np.zeros((num_envs, 1)))
    elif kind == "render":
        env = envhive.make("CartpoleBalance-v1", num_envs=num_envs, num_threads=threads, render_mode="rgb_array")
        env.reset()
        env.step(np.zeros((num_envs, 1)))
        env.render()
    else:
        env = envhive.make("DogRun-v1", num_envs=num_envs, num_threads=threads)
        env.reset()
        env.step(np.zeros((num_envs, 38)))
    env.close()
    del env
    gc.collect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=["pixels", "render", "dog"], default="pixels")
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    cycle(args.kind, args.num_envs, args.threads)  # warm up: imports, the GL library, first allocations
    samples = [(0, in_use_mb(), rss_mb())]
    start = time.monotonic()
    for i in range(1, args.cycles + 1):
        cycle(args.kind, args.num_envs, args.threads)
        if i % args.every == 0:
            samples.append((i, in_use_mb(), rss_mb()))
            print(
                f"{args.kind} cycle {i:4d}: malloc in use {samples[-1][1]:8.1f} MB  RSS {samples[-1][2]:8.1f} MB",
                flush=True,
            )
    first, last = samples[0], samples[-1]
    print(
        f"SUMMARY {args.kind} {args.cycles} cycles ({time.monotonic() - start:.0f} s): malloc in use "
        f"{first[1]:.1f} -> {last[1]:.1f} MB ({last[1] - first[1]:+.1f}), RSS {first[2]:.1f} -> {last[2]:.1f} MB "
        f"({last[2] - first[2]:+.1f}); envhive {envhive.__version__}, {envhive.__file__}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"kind": args.kind, "samples": samples}, f)


if __name__ == "__main__":
    main()
