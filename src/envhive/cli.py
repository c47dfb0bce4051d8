"""The `envhive` command: list tasks, describe one, benchmark against other engines.

envhive list
envhive info CartPole-v1
envhive bench CartPole-v1 --num-envs 64 --batch-size 32 --compare envpool,gymnasium-sync
envhive --cmake-dir        (the SDK's CMake package, for find_package(envhive CONFIG))
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from envhive import catalog, registry, sdk
from envhive.bench import (
    ENGINES,
    Case,
    Settings,
    compare,
    default_threads,
    format_markdown,
    format_table,
    parse_engines,
    with_alt_build,
)
from envhive.bench.harness import task_kwargs_json
from envhive.bench.report import write_json
from envhive.spaces import to_gym_space

DEFAULT_COMPARE = "gymnasium-single,gymnasium-sync,gymnasium-async,envpool"


def cmd_list(args: argparse.Namespace) -> int:
    families: dict[str, list[str]] = {}
    for task in catalog.task_ids():
        families.setdefault(catalog.get(task).family, []).append(task)
    if args.json:
        print(json.dumps(families, indent=2))
        return 0
    for family in sorted(families):
        tasks = families[family]
        print(f"{family} ({len(tasks)})")
        for task in tasks:
            print(f"  {task}{_agents_mark(catalog.get(task))}")
    for problem in catalog.problems():  # plug-ins (or their tasks) that cannot be used
        print(f"envhive: {problem}", file=sys.stderr)
    return 0


def _agents_mark(info: catalog.TaskInfo) -> str:
    """How `envhive list` marks a multi-agent task (PettingZoo's parallel API: envhive.multiagent)."""
    if info.default_spaces is None or not info.default_spaces.agents:
        return ""
    return f"  [multi-agent: {len(info.default_spaces.agents)} agents]"


def _info_dict(info: catalog.TaskInfo) -> dict[str, Any]:
    spaces = info.default_spaces
    if spaces is None:  # no manifest: only the task itself knows (this loads its module)
        try:
            spec = registry.make_spec(info.id)
            obs, act = str(spec.observation_space), str(spec.action_space)
        except ValueError as e:  # spaces that need a kwarg (VizdoomCustom-v1's cfg_path)
            obs = act = f"(depends on the kwargs: {e})"
    else:
        obs, act = str(to_gym_space(spaces.observation)), str(to_gym_space(spaces.action))
    return {
        "id": info.id,
        "family": info.family,
        "module": info.module,
        "doc": info.doc,
        "observation_space": obs,
        "action_space": act,
        "max_episode_steps": info.max_episode_steps,
        "kwargs": info.defaults,
        "kwarg_docs": info.config_docs,
        "reset_options": dict(info.reset_options),
        "agents": {
            a.name: {"observation_space": str(to_gym_space(a.observation)), "action_space": str(to_gym_space(a.action))}
            for a in (spaces.agents if spaces is not None else ())
        },
    }


def cmd_info(args: argparse.Namespace) -> int:
    try:
        info = registry.task_info(args.task)
    except (KeyError, ValueError) as exc:  # envhive's UnknownTaskError suggests close matches
        print(f"envhive: {exc}; see `envhive list`", file=sys.stderr)
        return 2
    data = _info_dict(info)
    if args.json:
        print(json.dumps(data, indent=2, default=str))
        return 0
    print(f"{data['id']}  ({data['family']}, {data['module']})")
    if data["doc"]:
        print(f"\n{data['doc'].strip()}\n")
    print(f"observation_space  {data['observation_space']}")
    print(f"action_space       {data['action_space']}")
    print(f"max_episode_steps  {data['max_episode_steps']}")
    if data["agents"]:
        print("\nagents (multi-agent: envhive.multiagent.make / parallel_env / vector_env)")
        for name, agent in data["agents"].items():
            print(f"  {name}  observation {agent['observation_space']}  action {agent['action_space']}")
    kwargs, docs = data["kwargs"], data["kwarg_docs"]
    if kwargs:
        print(f"\nkwargs: envhive.make({data['id']!r}, name=value, ...)")
        shown = {name: repr(value) for name, value in kwargs.items()}
        width = max(len(name) for name in shown)
        vwidth = min(max(len(v) for v in shown.values()), 24)
        for name, value in shown.items():
            print(f"  {name:<{width}}  {value:<{vwidth}}  {docs.get(name, '')}".rstrip())
    if data["reset_options"]:
        print("\nreset options: env.reset(options={name: value, ...})")
        for name, doc in data["reset_options"].items():
            print(f"  {name}  {doc}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    try:
        engines = parse_engines(args.compare)
    except ValueError as exc:
        args.parser.error(str(exc))
    engines = with_alt_build(engines, args.alt_python)
    if args.batch_size > args.num_envs:
        args.parser.error(f"--batch-size {args.batch_size} exceeds --num-envs {args.num_envs}")
    threads = min(args.threads or default_threads(), args.num_envs)
    try:
        kwargs = json.loads(args.kwargs) if args.kwargs else {}
    except json.JSONDecodeError as exc:
        args.parser.error(f"--kwargs must be a JSON object: {exc}")
    if not isinstance(kwargs, dict):
        args.parser.error(f"--kwargs must be a JSON object, got {args.kwargs}")
    cases = [Case(task, args.num_envs, args.batch_size, threads, task_kwargs_json(kwargs)) for task in args.tasks]
    settings = Settings(
        seconds=args.seconds, warmup=args.warmup, repeats=args.repeats, seed=args.seed, timeout=args.timeout
    )
    result = compare(cases, engines, settings, progress=not args.quiet)
    if args.json:
        write_json(result, sys.stdout)
    elif args.markdown:
        sys.stdout.write(format_markdown(result))
    else:
        sys.stdout.write(format_table(result))
    failed = any(r.error for r in result.results.values())
    return 1 if failed else 0


def _number(kind: type[int] | type[float], positive: bool) -> Callable[[str], int | float]:
    """An argparse type: `kind`, and > 0 (positive) or >= 0."""

    def parse(text: str) -> int | float:
        value = kind(text)
        if value < 0 or (positive and value == 0):
            raise argparse.ArgumentTypeError(f"must be {'>' if positive else '>='} 0, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its error messages
    return parse


def _engine_help() -> str:
    lines = ["engines:"]
    lines += [f"  {e.name:<17} {e.description}" for e in ENGINES.values()]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="envhive", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cmake-dir",
        action="store_true",
        help="print the folder of envhive's CMake package (find_package(envhive CONFIG)) and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="list all task ids, grouped by family")
    p.add_argument("--json", action="store_true", help="print {family: [task, ...]} as JSON")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("info", help="spaces, kwargs with defaults and docs of one task")
    p.add_argument("task", metavar="TASK")
    p.add_argument("--json", action="store_true", help="print the spec as JSON")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser(
        "bench",
        help="steps/s of envhive side by side with other engines",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_engine_help(),
        description="Each measurement runs in a fresh process: construct, reset, warm up, "
        "then step with random actions drawn up front. Repetitions are interleaved across "
        "engines; the median is reported. steps/s counts env steps: num_envs per sync "
        "step, batch_size per async recv. Async mode: --batch-size below --num-envs "
        "(envhive and envpool; the Gymnasium engines ignore it).",
    )
    p.add_argument("tasks", nargs="+", metavar="TASK")
    p.add_argument(
        "--num-envs",
        type=_number(int, positive=True),
        default=8,
        metavar="N",
        help="envs per pool (default 8; gymnasium-single always runs one)",
    )
    p.add_argument(
        "--batch-size",
        type=_number(int, positive=False),
        default=0,
        metavar="B",
        help="envs per recv; below N runs async (default 0 = N, sync)",
    )
    p.add_argument(
        "--threads",
        type=_number(int, positive=False),
        default=0,
        metavar="T",
        help="worker threads for envhive and envpool (default: all cores)",
    )
    p.add_argument(
        "--seconds",
        type=_number(float, positive=True),
        default=2.0,
        metavar="S",
        help="timed seconds per measurement (default 2)",
    )
    p.add_argument(
        "--warmup",
        type=_number(float, positive=False),
        default=1.0,
        metavar="S",
        help="untimed seconds of stepping before timing (default 1)",
    )
    p.add_argument(
        "--repeats",
        type=_number(int, positive=True),
        default=3,
        metavar="R",
        help="interleaved repetitions; the median is reported (default 3)",
    )
    p.add_argument(
        "--compare",
        default=DEFAULT_COMPARE,
        metavar="E1,E2",
        help=f"engines beside envhive, comma-separated (default {DEFAULT_COMPARE})",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--kwargs",
        default="",
        metavar="JSON",
        help="the tasks' kwargs, a JSON object (e.g. '{\"from_pixels\": true}'); engines that cannot take them skip",
    )
    p.add_argument(
        "--alt-python",
        metavar="PYTHON",
        help="also time the envhive of another build (its venv's python) as engine envhive-alt",
    )
    p.add_argument(
        "--timeout",
        type=_number(float, positive=True),
        default=300.0,
        metavar="S",
        help="limit per measurement process, construction included (default 300)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print results as JSON")
    out.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=cmd_bench, parser=p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cmake_dir:
        try:
            print(sdk.cmake_dir())
        except FileNotFoundError as exc:
            print(f"envhive: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command is None:
        parser.error("a command is required (list, info, bench)")
    try:
        code: int = args.func(args)
    except ImportError as exc:
        print(f"envhive: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
