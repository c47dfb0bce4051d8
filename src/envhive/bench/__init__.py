"""Benchmark harness shared by `envhive bench` and the scripts in `benchmarks/`.

Every measurement runs in a fresh process (`python -m envhive.bench.worker`): construct,
reset, warm up, then time stepping with random actions drawn up front. Repetitions are
interleaved across engines and the median is reported; compare engines side by side in one
run and quote ratios. Importing this package imports no simulator.
"""

from envhive.bench.engines import ENGINES, Engine
from envhive.bench.harness import (
    Measurement,
    Progress,
    Result,
    Settings,
    default_threads,
    machine_info,
    parse_engines,
    run_measurements,
    with_alt_build,
)
from envhive.bench.report import (
    Case,
    Comparison,
    Row,
    compare,
    format_markdown,
    format_memory,
    format_ratios,
    format_table,
)

__all__ = [
    "ENGINES",
    "Case",
    "Comparison",
    "Engine",
    "Measurement",
    "Progress",
    "Result",
    "Row",
    "Settings",
    "compare",
    "default_threads",
    "format_markdown",
    "format_memory",
    "format_ratios",
    "format_table",
    "machine_info",
    "parse_engines",
    "run_measurements",
    "with_alt_build",
]
