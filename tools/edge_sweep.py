"""Every kwarg of one task per family (or every task with --all) at the values an adversarial user
tries: 0, -1, a huge value, NaN / inf, and the wrong type. Each case makes a pool, resets and steps
it; the outcome must be a pool that works or a Python exception naming the problem (ValueError,
TypeError, envhive's errors), never a crash, a hang or a silent change of type.

    python tools/edge_sweep.py [--family dmc] [--all] [--timeout 120]

Each family runs in a subprocess of its own (a crash or hang there is reported with the case that
was running); prints one line per family and, with --verbose, one per case."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from typing import Any

HUGE_INT = 10**12


def values_for(default: Any) -> list[tuple[str, Any]]:
    """The adversarial values of a kwarg, by its default's type."""
    if isinstance(default, bool):
        return [("wrong type", "yes"), ("int for bool", 2)]
    if isinstance(default, int):
        return [("0", 0), ("-1", -1), ("huge", HUGE_INT), ("float", 1.5), ("nan", math.nan), ("wrong type", "3")]
    if isinstance(default, float):
        return [("0", 0.0), ("-1", -1.0), ("huge", 1e300), ("nan", math.nan), ("inf", math.inf), ("wrong type", "x")]
    if isinstance(default, str):
        return [("empty", ""), ("nonsense", "no-such-value"), ("wrong type", 3)]
    if isinstance(default, list):
        return [("empty", []), ("nan", [math.nan] * max(1, len(default))), ("wrong type", "x")]
    if isinstance(default, dict):
        return [("wrong type", 3), ("bad entry", {"no_such_key": [1.0]})]
    return [("wrong type", object())]


def run_family(family: str, every_task: bool, verbose: bool) -> dict[str, Any]:
    """In this process: every case of the family's task(s); prints a JSON line per case."""
    import numpy as np

    import envhive
    from envhive import catalog
    from envhive.errors import EnvError, MissingExtraError, RenderError

    tasks = [t for t in envhive.list_envs() if catalog.get(t).family == family]
    if not tasks:
        return {}
    for task_id in tasks if every_task else tasks[:1]:
        info = catalog.get(task_id)
        for name, default in info.defaults.items():
            for label, value in values_for(default):
                case = f"{task_id} {name}={label}"
                print(json.dumps({"start": case}), flush=True)
                outcome = "ok"
                try:
                    env = envhive.make(task_id, num_envs=2, **{name: value})
                    try:
                        env.reset(seed=0)
                        env.step(np.stack([env.single_action_space.sample() for _ in range(2)]))
                    finally:
                        env.close()
                except (ValueError, TypeError, OverflowError) as e:
                    outcome = f"refused: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
                except (EnvError, RenderError, MissingExtraError) as e:  # clear, but only once an env ran
                    outcome = f"refused late: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
                except Exception as e:  # anything else is a finding
                    outcome = f"FINDING {type(e).__name__}: {str(e).splitlines()[0][:160]}"
                print(json.dumps({"case": case, "outcome": outcome}), flush=True)
    return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append")
    parser.add_argument("--all", action="store_true", help="every task of each family, not the first")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_family(args.child, args.all, args.verbose)
        return
    import envhive
    from envhive import catalog

    families = args.family or sorted({catalog.get(t).family for t in envhive.list_envs()})
    total = 0
    for family in families:
        cmd = [sys.executable, __file__, "--child", family] + (["--all"] if args.all else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            out, status = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            out, status = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
        cases, started = [], None
        for line in out.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in rec:
                started = rec["start"]
            else:
                cases.append(rec)
                started = None
        findings = [c for c in cases if c["outcome"].startswith("FINDING")]
        ran = len(cases) - sum(c["outcome"].startswith(("refused", "FINDING")) for c in cases)
        if started is not None:
            findings.append({"case": started, "outcome": f"FINDING: the process ended ({status}) during this case"})
        refused = sum(c["outcome"].startswith("refused") for c in cases)
        late = [c for c in cases if c["outcome"].startswith("refused late")]
        total += len(cases)
        print(
            f"{family:16s} {len(cases):4d} cases: {ran} ran, "
            f"{refused} refused ({len(late)} only at reset/step), {len(findings)} findings",
            flush=True,
        )
        for c in findings + late if not args.verbose else cases:
            print(f"    {c['case']}: {c['outcome']}")
    print(f"total {total} cases")


if __name__ == "__main__":
    main()
