"""One measurement in a fresh process; prints one JSON line on stdout.

    python -m envhive.bench.worker --engine envpool --task CartPole-v1 --num-envs 64 \\
        --batch-size 32 --threads 2 --seconds 2 --warmup 1

Construct and reset, step for `--warmup` seconds, then time `--seconds` of stepping. The
JSON line has `steps_per_s` on success, `skipped` when the engine is not installed, `error`
when it failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from time import perf_counter
from typing import Any

from envhive.bench.engines import ENGINES, Runner, set_task_kwargs

# A timed chunk of calls should last about this long: the clock is read once per chunk.
CHUNK_SECONDS = 0.01
MAX_CHUNK = 1 << 20


def run_for(advance: Callable[[int], None], seconds: float, chunk: int = 1) -> tuple[int, float, int]:
    """Call `advance` in chunks until `seconds` have passed (at least once); the chunk
    doubles while one takes under half of CHUNK_SECONDS. Returns (calls, elapsed, chunk)."""
    calls = 0
    start = last = perf_counter()
    deadline = start + seconds
    while True:
        advance(chunk)
        calls += chunk
        now = perf_counter()
        if now >= deadline:
            return calls, now - start, chunk
        if now - last < CHUNK_SECONDS / 2 and chunk < MAX_CHUNK:
            chunk *= 2
        last = now


def cpu_seconds(child_pids: Sequence[int]) -> float | None:
    """CPU time of this process (all threads) plus the live `child_pids`, via /proc."""
    times = os.times()
    total = times.user + times.system
    if not child_pids:
        return total
    tick = os.sysconf("SC_CLK_TCK")
    for pid in child_pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB (from /proc; 0 elsewhere)."""
    return tree_memory(pid)[0]


def tree_memory(pid: int) -> tuple[float, float | None, int]:
    """(RSS MB, PSS MB, processes) of a process and all its descendants, from /proc. PSS splits
    the pages processes share (fork's copy-on-write, shared memory) among them, so it adds up to
    what the tree really holds; RSS counts a shared page in each. PSS is None where
    /proc/<pid>/smaps_rollup is unreadable."""
    rss = pss = 0.0
    pss_ok = True
    count, todo = 0, [pid]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        p = todo.pop()
        try:
            rss += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * page / 1e6
            count += 1
            try:
                for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024 / 1e6
                        break
            except OSError:
                pss_ok = False
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return rss, (pss if pss_ok else None), count


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def measure(
    engine: str,
    task: str,
    num_envs: int,
    batch_size: int,
    num_threads: int | None,
    seconds: float,
    warmup: float,
    seed: int,
    kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "engine": engine,
        "task": task,
        "num_envs": num_envs,
        "batch_size": batch_size,
        "num_threads": num_threads,
        "mode": ENGINES[engine].mode(num_envs, batch_size),
    }
    spec = ENGINES[engine]
    if kwargs:
        result["kwargs"] = kwargs
        if not spec.kwargs:
            result["skipped"] = f"{engine} takes no task kwargs"
            return result
    set_task_kwargs(kwargs or {})
    if spec.rate is not None:  # times itself
        result.update(steps_per_s=spec.rate(task, seconds, seed), version=_version("envhive"))
        return result
    assert spec.build is not None
    t0 = perf_counter()
    try:
        runner: Runner = spec.build(task, num_envs, batch_size, num_threads, seed)
    except ImportError as exc:
        hint = ENGINES[engine].install_hint
        missing_itself = exc.name == ENGINES[engine].requires
        result["skipped"] = hint if missing_itself else f"{hint}: {type(exc).__name__}: {exc}"
        return result
    construct_s = perf_counter() - t0
    try:
        _, warmup_s, chunk = run_for(runner.advance, warmup)
        rss_mb, pss_mb, processes = tree_memory(os.getpid())
        cpu0 = cpu_seconds(runner.child_pids)
        calls, elapsed, _ = run_for(runner.advance, seconds, chunk)
        cpu1 = cpu_seconds(runner.child_pids)
    finally:
        runner.close()
    steps = calls * runner.steps_per_call
    result.update(
        calls=calls,
        steps=steps,
        elapsed_s=elapsed,
        steps_per_s=steps / elapsed,
        us_per_call=elapsed / calls * 1e6,
        construct_s=construct_s,
        warmup_s=warmup_s,
        rss_mb=rss_mb,
        pss_mb=pss_mb,
        processes=processes,
        cpu_cores=None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / elapsed,
        version=_version(ENGINES[engine].requires),
    )
    return result


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m envhive.bench.worker",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--engine", required=True, choices=sorted(ENGINES))
    p.add_argument("--task", required=True)
    p.add_argument("--num-envs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=0, help="0 = num_envs (sync)")
    p.add_argument("--threads", type=int, default=0, help="0 = the engine's default")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kwargs", default="", help="the task's kwargs as a JSON object")
    a = p.parse_args(argv)
    try:
        result = measure(
            a.engine,
            a.task,
            a.num_envs,
            a.batch_size or a.num_envs,
            a.threads or None,
            a.seconds,
            a.warmup,
            a.seed,
            json.loads(a.kwargs) if a.kwargs else None,
        )
    except Exception as exc:  # report, don't crash: the parent prints it in the table
        traceback.print_exc()
        result = {"engine": a.engine, "task": a.task, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result), flush=True)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
