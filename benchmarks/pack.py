"""Pack every minimalloc instance and print one row each.

    python benchmarks/pack.py [DIR] [--repeat N]
    python benchmarks/pack.py [DIR] --exact [--repeat N] [--time-limit S] [--workers W]

DIR defaults to ../shared/data/minimalloc beside the repository. Without
--exact: the greedy packers (the best of ten strategies). With --exact: for
each instance, `fit` decides the file's capacity (a valid plan within it, or a
proof there is none) and `minimize` finds the lowest peak and proves it, or
stops at the time limit with the gap it has proven; the first line says how
long loading the compiled search took (compiling it, when numba's cache is
empty). Seconds are medians of N runs (default 3; an exact run that hits the
time limit is not repeated): the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from memplan.pack import Buffer, Problem, lower_bound, plan, read_problem
from memplan.report.table import format_table

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "minimalloc"

GREEDY_HEADERS = ("instance", "n", "lower bound", "capacity", "peak", "ratio", "fits",
                  "strategy", "seconds")
EXACT_HEADERS = ("instance", "n", "lower bound", "capacity", "fit status", "peak", "fits",
                 "fit s", "fit nodes", "min peak", "proven optimal", "proven bound", "gap",
                 "min s", "min nodes")


def greedy_row(path: Path, repeat: int) -> tuple:
    problem = read_problem(path)
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = plan(problem)
        seconds.append(time.perf_counter() - started)
    return (path.name, len(problem), result.lower_bound, problem.capacity, result.peak,
            round(result.ratio, 3), result.fits, result.strategy,
            round(statistics.median(seconds), 3))


def timed_exact(problem: Problem, repeat: int, **options: object) -> tuple:
    from memplan.pack.exact import solve_exact

    seconds = []
    for _ in range(repeat):
        result = solve_exact(problem, **options)
        seconds.append(result.seconds)
        if result.status == "timeout":
            break
    return result, statistics.median(seconds)


def exact_row(path: Path, repeat: int, time_limit: float, workers: int | None) -> tuple:
    problem = read_problem(path)
    fit, fit_seconds = timed_exact(problem, repeat, time_limit=time_limit, workers=workers)
    best, best_seconds = timed_exact(problem, repeat, minimize=True, time_limit=time_limit,
                                     workers=workers)
    proven = best.status == "optimal"
    gap = "0" if proven else f"{100 * (best.gap or 0):.2f}%"
    fits = fit.peak is not None and fit.peak <= problem.capacity
    return (path.name, len(problem), lower_bound(problem), problem.capacity, fit.status,
            fit.peak, "yes" if fits else "no", round(fit_seconds, 2), fit.nodes,
            best.peak, "yes" if proven else "no", best.best_bound, gap,
            round(best_seconds, 2), best.nodes)


def warm_up_exact() -> float:
    from memplan.pack.exact import solve_exact

    started = time.perf_counter()
    # Two aligned buffers: the heuristics leave a gap, so the search must run.
    tiny = Problem([Buffer("a", 0, 2, 3, 4), Buffer("b", 1, 3, 3, 4)])
    solve_exact(tiny, minimize=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--exact", action="store_true", help="fit and minimise exactly")
    parser.add_argument("--time-limit", type=float, default=60.0, help="per exact solve")
    parser.add_argument("--workers", type=int, default=None,
                        help="threads for the exact preorders (default: one per core, at most 3)")
    args = parser.parse_args()
    paths = sorted(args.directory.glob("*.csv"))
    if not paths:
        print(f"no CSV files in {args.directory}", file=sys.stderr)
        return 2
    if args.exact:
        print(f"loading the compiled search: {warm_up_exact():.2f} s")
        rows = [exact_row(p, args.repeat, args.time_limit, args.workers) for p in paths]
        print(format_table(EXACT_HEADERS, rows))
    else:
        print(format_table(GREEDY_HEADERS, [greedy_row(p, args.repeat) for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
