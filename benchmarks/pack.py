"""Pack every minimalloc instance with the heuristics and print one row each.

    python benchmarks/pack.py [DIR] [--repeat N]

DIR defaults to ../shared/data/minimalloc beside the repository. Seconds are
the median of N runs (default 3): the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from memplan.pack import plan, read_problem
from memplan.report.table import format_table

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "minimalloc"


def measure(path: Path, repeat: int) -> tuple:
    problem = read_problem(path)
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = plan(problem)
        seconds.append(time.perf_counter() - started)
    return (path.name, len(problem), result.lower_bound, problem.capacity, result.peak,
            round(result.ratio, 3), result.fits, result.strategy,
            round(statistics.median(seconds), 3))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(args.directory.glob("*.csv"))
    if not paths:
        print(f"no CSV files in {args.directory}", file=sys.stderr)
        return 2
    rows = [measure(path, args.repeat) for path in paths]
    headers = ("instance", "n", "lower bound", "capacity", "peak", "ratio", "fits", "strategy",
               "seconds")
    print(format_table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
