"""Pack every minimalloc instance with the exact solver and print one row each.

    python benchmarks/pack_exact.py [DIR] [--repeat N] [--time-limit S] [--workers W]

DIR defaults to ../shared/data/minimalloc beside the repository. For each
instance: `fit` decides the file's capacity (a valid plan within it, or a
proof there is none); `minimize` finds the lowest peak and proves it, or
stops at the time limit with the gap it has proven. Seconds are the median of
N runs (default 3; a run that hits the time limit is not repeated): the
machines are shared and noisy. The first line reports how long loading the
compiled search took (compiling it, when numba's cache is empty).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from memplan.pack import Buffer, Problem, lower_bound, read_problem
from memplan.pack.exact import ExactResult, solve_exact
from memplan.report.table import format_table

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "minimalloc"


def timed(problem: Problem, repeat: int, **options: object) -> tuple[ExactResult, float]:
    seconds = []
    for _ in range(repeat):
        result = solve_exact(problem, **options)
        seconds.append(result.seconds)
        if result.status == "timeout":
            break
    return result, statistics.median(seconds)


def measure(path: Path, repeat: int, time_limit: float, workers: int | None) -> tuple:
    problem = read_problem(path)
    fit, fit_seconds = timed(problem, repeat, time_limit=time_limit, workers=workers)
    best, best_seconds = timed(problem, repeat, minimize=True, time_limit=time_limit,
                               workers=workers)
    proven = best.status == "optimal"
    gap = "0" if proven else f"{100 * (best.gap or 0):.2f}%"
    fits = fit.peak is not None and fit.peak <= problem.capacity
    return (path.name, len(problem), lower_bound(problem), problem.capacity, fit.status,
            fit.peak, "yes" if fits else "no", round(fit_seconds, 2), fit.nodes,
            best.peak, "yes" if proven else "no", best.best_bound, gap,
            round(best_seconds, 2), best.nodes)


def warm_up() -> float:
    started = time.perf_counter()
    # Two aligned buffers: the heuristics leave a gap, so the search must run.
    tiny = Problem([Buffer("a", 0, 2, 3, 4), Buffer("b", 1, 3, 3, 4)])
    solve_exact(tiny, minimize=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=None,
                        help="threads for the preorders (default: one per core, at most 3)")
    args = parser.parse_args()
    paths = sorted(args.directory.glob("*.csv"))
    if not paths:
        print(f"no CSV files in {args.directory}", file=sys.stderr)
        return 2
    print(f"loading the compiled search: {warm_up():.2f} s")
    rows = [measure(path, args.repeat, args.time_limit, args.workers) for path in paths]
    headers = ("instance", "n", "lower bound", "capacity", "fit status", "peak", "fits",
               "fit s", "fit nodes", "min peak", "proven optimal", "proven bound", "gap",
               "min s", "min nodes")
    print(format_table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
