"""Run measurements in fresh worker processes, repetitions interleaved, medians reported."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from envhive.bench.engines import ALT_ENGINE_ENV, ALT_PYTHON_ENV, ENGINES

# How a worker starts in an interpreter that cannot import envhive itself (another numpy, no
# native module: PufferLib's venv): it loads only the envhive.bench package, which imports no
# simulator, from this checkout.
BOOTSTRAP = f"""
import runpy, sys, types
package = types.ModuleType("envhive")
package.__path__ = [{str(Path(__file__).resolve().parents[1])!r}]
sys.modules["envhive"] = package
sys.argv[0] = "envhive.bench.worker"
runpy.run_module("envhive.bench.worker", run_name="__main__")
"""


@dataclass(frozen=True)
class Settings:
    """How long and how often each measurement runs."""

    seconds: float = 2.0
    warmup: float = 1.0
    repeats: int = 3
    seed: int = 0
    timeout: float = 300.0  # per worker process, construction included


@dataclass(frozen=True)
class Measurement:
    """One engine on one configuration; what a worker process times.

    Build with `Measurement.of` so that settings an engine ignores are normalised away and
    equal measurements (e.g. gymnasium-single at any num_envs) are run only once."""

    engine: str
    task: str
    num_envs: int
    batch_size: int
    num_threads: int | None
    kwargs: str = ""
    """The task's kwargs as a JSON object (`task_kwargs_json`); "" for none."""

    @classmethod
    def of(
        cls,
        engine: str,
        task: str,
        num_envs: int,
        batch_size: int = 0,
        num_threads: int | None = None,
        kwargs: str = "",
    ) -> Measurement:
        e = ENGINES[engine]
        batch_size = batch_size or num_envs
        if not 1 <= batch_size <= num_envs:
            raise ValueError(f"batch_size must be in [1, num_envs={num_envs}], got {batch_size}")
        if not e.vectorized:
            num_envs = 1
        if not e.batched:
            batch_size = num_envs
        return cls(engine, task, num_envs, batch_size, num_threads if e.threaded else None, kwargs)

    @property
    def mode(self) -> str:
        return ENGINES[self.engine].mode(self.num_envs, self.batch_size)

    def label(self) -> str:
        text = f"{self.engine} {self.task} N={self.num_envs}"
        if self.batch_size != self.num_envs:
            text += f" B={self.batch_size}"
        if self.kwargs:
            text += f" {self.kwargs}"
        return text

    def argv(self, settings: Settings) -> list[str]:
        # envhive-alt: envhive as another build's interpreter imports it (its own worker runs it,
        # as the engine $ENVHIVE_BENCH_ALT_ENGINE names, default envhive).
        alt = self.engine == "envhive-alt"
        python = ENGINES[self.engine].python()
        if alt:
            start = [os.environ[ALT_PYTHON_ENV], "-m", "envhive.bench.worker"]
        elif python is not None:
            start = [python, "-c", BOOTSTRAP]
        else:
            start = [sys.executable, "-m", "envhive.bench.worker"]
        return [
            *start,
            "--engine",
            os.environ.get(ALT_ENGINE_ENV, "envhive") if alt else self.engine,
            "--task",
            self.task,
            "--num-envs",
            str(self.num_envs),
            "--batch-size",
            str(self.batch_size),
            "--threads",
            str(self.num_threads or 0),
            "--seconds",
            str(settings.seconds),
            "--warmup",
            str(settings.warmup),
            "--seed",
            str(settings.seed),
            *(["--kwargs", self.kwargs] if self.kwargs else []),
        ]


def task_kwargs_json(kwargs: dict[str, Any] | None) -> str:
    """A measurement's task kwargs in their canonical form (sorted JSON; "" for none)."""
    return json.dumps(kwargs, sort_keys=True, separators=(",", ":")) if kwargs else ""


@dataclass
class Result:
    """The repetitions of one measurement; `skipped` or `error` when it could not run."""

    measurement: Measurement
    samples: list[dict[str, Any]] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.samples) and self.skipped is None and self.error is None

    def _median(self, key: str) -> float | None:
        values = [s[key] for s in self.samples if s.get(key) is not None]
        return statistics.median(values) if values else None

    @property
    def steps_per_s(self) -> float | None:
        return self._median("steps_per_s") if self.ok else None

    @property
    def us_per_call(self) -> float | None:
        return self._median("us_per_call") if self.ok else None

    @property
    def cpu_cores(self) -> float | None:
        return self._median("cpu_cores") if self.ok else None

    @property
    def rss_mb(self) -> float | None:
        """Resident memory of the engine's process tree after the warm-up."""
        return self._median("rss_mb") if self.ok else None

    @property
    def spread(self) -> float | None:
        """(max - min) / median of steps/s over the repetitions."""
        values = [s["steps_per_s"] for s in self.samples]
        if not self.ok or len(values) < 2:
            return None
        return (max(values) - min(values)) / statistics.median(values)

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self.measurement),
            "mode": self.measurement.mode,
            "steps_per_s": self.steps_per_s,
            "us_per_call": self.us_per_call,
            "cpu_cores": self.cpu_cores,
            "construct_s": self._median("construct_s"),
            "rss_mb": self.rss_mb,
            "pss_mb": self._median("pss_mb"),
            "processes": self._median("processes"),
            "spread": self.spread,
            "samples": [s["steps_per_s"] for s in self.samples],
            "skipped": self.skipped,
            "error": self.error,
        }


class Progress:
    """A plain-text progress bar on a stream (redrawn in place on a terminal, one line per
    measurement otherwise)."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 24) -> None:
        self.total, self.done, self.width = total, 0, width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.start = time.monotonic()

    def show(self, label: str) -> None:
        elapsed = time.monotonic() - self.start
        eta = f"~{elapsed / self.done * (self.total - self.done):.0f}s left" if self.done else ""
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {self.done}/{self.total} {elapsed:4.0f}s {eta:>11}  {label}"
        if self.tty:
            self.stream.write("\r\x1b[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def advance(self, label: str = "") -> None:
        self.done += 1
        if self.tty:
            self.show(label)

    def finish(self) -> None:
        self.done = self.total
        self.show("done")
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _worker_env(m: Measurement) -> dict[str, str]:
    """The environment for worker processes: if this package was found through sys.path
    (a source checkout or PYTHONPATH) rather than an installed copy, pass that folder on --
    except to another build's interpreter (envhive-alt), which must import its own."""
    env = dict(os.environ)
    if m.engine == "envhive-alt":
        return env
    root = Path(__file__).resolve().parents[2]
    on_path = {Path(p or os.getcwd()).resolve() for p in sys.path}
    if root in on_path:
        parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        if str(root) not in parts:
            env["PYTHONPATH"] = os.pathsep.join([str(root), *parts])
    return env


def run_worker(m: Measurement, settings: Settings, cwd: str | None = None) -> dict[str, Any]:
    """Time `m` once in a fresh process and return the worker's JSON result."""
    try:
        proc = subprocess.run(
            m.argv(settings),
            capture_output=True,
            text=True,
            cwd=cwd,
            env=_worker_env(m),
            timeout=settings.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {settings.timeout:.0f}s"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            if "error" in result and proc.stderr.strip():
                result["stderr"] = proc.stderr.strip()[-2000:]
            return result
    tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    return {"error": f"worker printed no result: {tail}", "stderr": proc.stderr[-2000:]}


def run_measurements(
    measurements: Iterable[Measurement], settings: Settings, progress: bool | TextIO = True
) -> dict[Measurement, Result]:
    """Run every distinct measurement `settings.repeats` times, interleaved
    (A B C A B C ...), each in a fresh process. An engine that is not installed is skipped
    without starting a process; a measurement that fails is not repeated."""
    todo = list(dict.fromkeys(measurements))
    results = {m: Result(m) for m in todo}
    for m in todo:
        results[m].skipped = ENGINES[m.engine].available()
    runnable = [m for m in todo if results[m].skipped is None]
    bar = None
    if progress:
        bar = Progress(len(runnable) * settings.repeats, None if progress is True else progress)
    # Workers run in a scratch folder: some simulators write logs into the working directory.
    with tempfile.TemporaryDirectory(prefix="envhive-bench-") as scratch:
        for rep in range(settings.repeats):
            for m in runnable:
                r = results[m]
                if r.skipped is not None or r.error is not None:
                    if bar:
                        bar.total -= 1  # not repeated after it failed
                    continue
                label = f"{m.label()} (rep {rep + 1}/{settings.repeats})"
                if bar:
                    bar.show(label)
                out = run_worker(m, settings, cwd=scratch)
                if "skipped" in out:
                    r.skipped = out["skipped"]
                elif "error" in out:
                    r.error = out["error"]
                    if bar and "stderr" in out:
                        bar.stream.write(f"\n{m.label()} failed:\n{out['stderr']}\n")
                else:
                    r.samples.append(out)
                if bar:
                    bar.advance(label)
    if bar:
        bar.finish()
    return results


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions: dict[str, str | None] = {}
    for dist in ("envhive", "envpool", "gymnasium", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "loadavg_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def default_threads() -> int:
    """The thread count used when none is given: every core of this machine."""
    return os.cpu_count() or 1


def with_alt_build(engines: list[str], python: str | None) -> list[str]:
    """`engines` with `envhive-alt` (the envhive of another build's interpreter) beside envhive,
    for before/after comparisons in one interleaved run; unchanged when `python` is None."""
    if not python:
        return engines
    os.environ[ALT_PYTHON_ENV] = python
    out = [e for e in engines if e != "envhive-alt"]
    out.insert(out.index("envhive") + 1 if "envhive" in out else 0, "envhive-alt")
    return out


def parse_engines(text: str, include_envhive: bool = True) -> list[str]:
    """'gymnasium-sync,envpool' -> ['envhive', 'gymnasium-sync', 'envpool'] (validated)."""
    names = [n.strip() for n in text.split(",") if n.strip() and n.strip() != "none"]
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engine(s) {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    if include_envhive:
        names.insert(0, "envhive")
    return list(dict.fromkeys(names))
