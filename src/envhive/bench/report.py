"""Side-by-side comparisons: cases x engines, with ratios envhive / engine."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from envhive.bench.harness import Measurement, Result, Settings, machine_info, run_measurements


@dataclass(frozen=True)
class Case:
    """One configuration every engine is run on. batch_size 0 means num_envs (sync)."""

    task: str
    num_envs: int
    batch_size: int = 0
    num_threads: int | None = None
    kwargs: str = ""  # the task's kwargs (harness.task_kwargs_json)

    def measurement(self, engine: str) -> Measurement:
        return Measurement.of(engine, self.task, self.num_envs, self.batch_size, self.num_threads, self.kwargs)

    @property
    def batch(self) -> int:
        return self.batch_size or self.num_envs

    def title(self) -> str:
        threads = self.num_threads if self.num_threads else "auto"
        kwargs = f"  {self.kwargs}" if self.kwargs else ""
        return f"{self.task}{kwargs}  num_envs={self.num_envs}  batch_size={self.batch}  threads={threads}"


@dataclass(frozen=True)
class Row:
    engine: str
    mode: str
    steps_per_s: float | None
    spread: float | None
    us_per_call: float | None
    cpu_cores: float | None
    ratio: float | None  # envhive steps/s over this engine's
    note: str | None  # why there is no number


@dataclass
class Comparison:
    cases: list[Case]
    engines: list[str]
    results: dict[Measurement, Result]
    settings: Settings
    machine: dict[str, Any]

    def rows(self, case: Case) -> list[Row]:
        base = self.results[case.measurement("envhive")].steps_per_s if "envhive" in self.engines else None
        rows = []
        for engine in self.engines:
            r = self.results[case.measurement(engine)]
            sps = r.steps_per_s
            rows.append(
                Row(
                    engine=engine,
                    mode=r.measurement.mode,
                    steps_per_s=sps,
                    spread=r.spread,
                    us_per_call=r.us_per_call,
                    cpu_cores=r.cpu_cores,
                    ratio=base / sps if base and sps else None,
                    note=f"skipped: {r.skipped}" if r.skipped else (f"error: {r.error}" if r.error else None),
                )
            )
        return rows

    def physical_limit(self, case: Case) -> float | None:
        """min(cores, num_envs) x the task's single-thread C++ loop rate (the `cpp-loop` engine)."""
        if "cpp-loop" not in self.engines:
            return None
        rate = self.results[case.measurement("cpp-loop")].steps_per_s
        cores = int(self.machine.get("cpu_count") or 1)
        return rate * min(cores, case.num_envs) if rate else None

    def to_json(self) -> dict[str, Any]:
        cases = []
        for case in self.cases:
            rows = [
                {**self.results[case.measurement(row.engine)].to_dict(), "ratio": row.ratio} for row in self.rows(case)
            ]
            cases.append({**asdict(case), "batch_size": case.batch, "rows": rows})
        return {"machine": self.machine, "settings": asdict(self.settings), "cases": cases}


def compare(
    cases: Sequence[Case], engines: Sequence[str], settings: Settings, progress: bool | TextIO = True
) -> Comparison:
    """Measure every engine on every case; repetitions interleaved across all of them."""
    measurements = [case.measurement(e) for case in cases for e in engines]
    results = run_measurements(measurements, settings, progress)
    return Comparison(list(cases), list(engines), results, settings, machine_info())


def _num(v: float | None, fmt: str) -> str:
    return "—" if v is None else format(v, fmt)


def _cells(row: Row) -> list[str]:
    return [
        row.engine,
        row.mode,
        _num(row.steps_per_s, ",.0f"),
        "—" if row.spread is None else f"{row.spread:.0%}",
        _num(row.us_per_call, ".1f"),
        _num(row.cpu_cores, ".2f"),
        "—" if row.ratio is None else f"{row.ratio:.2f}x",
    ]


HEADER = ["engine", "mode", "steps/s", "spread", "us/call", "cores", "envhive/engine"]
RIGHT = {2, 3, 4, 5, 6}  # right-aligned (numeric) columns


def summary(c: Comparison) -> str:
    s, m = c.settings, c.machine
    return (
        f"median of {s.repeats} run(s) x {s.seconds:g} s after {s.warmup:g} s warm-up, "
        f"each in a fresh process; {m['cpu_count']} x {m['cpu']}, Python {m['python']}"
    )


def _notes(rows: list[Row], limit: int = 240) -> list[str]:
    """One line per engine without a number (the JSON keeps the full message)."""
    notes = []
    for row in rows:
        if row.note:
            text = " ".join(row.note.split())
            notes.append(f"{row.engine}: {text if len(text) <= limit else text[: limit - 3] + '...'}")
    return notes


def format_table(c: Comparison) -> str:
    """Aligned plain text, one block per case."""
    out = [summary(c), ""]
    for case in c.cases:
        rows = c.rows(case)
        table = [HEADER, *(_cells(r) for r in rows)]
        widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
        out.append(case.title())
        for line in table:
            cells = [
                cell.rjust(w) if i in RIGHT else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(line, widths, strict=True))
            ]
            out.append("  " + "  ".join(cells).rstrip())
        out.extend("  " + n for n in _notes(rows))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def format_markdown(c: Comparison) -> str:
    """One markdown table over all cases."""
    out = [
        f"_{summary(c)}._",
        "",
        "| task | num_envs | batch | threads | " + " | ".join(HEADER) + " |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    for case in c.cases:
        rows = c.rows(case)
        for row in rows:
            threads = case.num_threads or "auto"
            prefix = [case.task, str(case.num_envs), str(case.batch), str(threads)]
            out.append("| " + " | ".join(prefix + _cells(row)) + " |")
        notes.extend(n for n in _notes(rows) if n not in notes)
    if notes:
        out.append("")
        out.extend(f"- {n}" for n in notes)
    return "\n".join(out) + "\n"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "—"


def format_ratios(c: Comparison, references: Sequence[str], labels: dict[str, str] | None = None) -> str:
    """One markdown row per case: envhive's steps/s and its ratio to each reference engine, and to
    the physical limit when the `cpp-loop` engine ran."""
    labels = labels or {}
    names = [labels.get(r, r) for r in references]
    with_limit = "cpp-loop" in c.engines
    head = ["task", "num_envs", "mode", "envhive steps/s", *(f"/ {n}" for n in names)]
    head += ["/ physical limit"] if with_limit else []
    out = ["| " + " | ".join(head) + " |", "|---|---:|---|" + "---:|" * (len(head) - 3)]
    for case in c.cases:
        rows = {r.engine: r for r in c.rows(case)}
        hive = rows["envhive"].steps_per_s if "envhive" in rows else None

        cells = [case.task, str(case.num_envs), rows["envhive"].mode, _num(hive, ",.0f")]
        cells += [_ratio(hive, rows[r].steps_per_s if r in rows else None) for r in references]
        cells += [_ratio(hive, c.physical_limit(case))] if with_limit else []
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def format_memory(c: Comparison, num_envs: int) -> str:
    """RSS of each engine's process tree after the warm-up, sync cases with `num_envs` envs."""
    out = ["| task | engine | RSS MB | construct s |", "|---|---|---:|---:|"]
    for case in c.cases:
        if case.num_envs != num_envs or case.batch != num_envs:
            continue
        for engine in c.engines:
            r = c.results[case.measurement(engine)]
            if r.rss_mb is not None:
                construct = r._median("construct_s")
                out.append(f"| {case.task} | {engine} | {r.rss_mb:,.0f} | {_num(construct, '.1f')} |")
    return "\n".join(out) + "\n"


def write_json(c: Comparison, stream: TextIO) -> None:
    json.dump(c.to_json(), stream, indent=2)
    stream.write("\n")
