"""Pack every minimalloc instance and print one row each.

    python benchmarks/pack.py [DIR] [--repeat N]
    python benchmarks/pack.py [DIR] --exact [--repeat N] [--time-limit S] [--workers W]
                              [--minimalloc BINARY]

DIR defaults to tests/data/minimalloc (google/minimalloc's instances A-F and
its example, kept in the repository so a clone runs this). Without
--exact: the greedy packers (the best of ten strategies). With --exact: for
each instance, `fit` decides the file's capacity (a valid plan within it, or a
proof there is none) and `minimize` finds the lowest peak and proves it, or
stops at the time limit with the gap it has proven; the first line says how
long loading the compiled search took (compiling it, when numba's cache is
empty). Seconds are medians of N runs (default 3; an exact run that hits the
time limit is not repeated): the machines are shared and noisy.

--minimalloc BINARY also runs google/minimalloc's command-line solver (built
by you, outside this repository) on each instance at the file's capacity, in
the same run and the same way (median of N, wall time of the process), checks
its plan with memplan's validator, and adds its seconds beside the wall time
of the whole `memplan pack FILE --exact` process (Python start, imports and
loading the compiled search included), and the ratio of the two.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memplan.pack import Buffer, Problem, Solution, lower_bound, pack, read_problem, validate
from memplan.report.table import format_table

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "minimalloc"

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
        result = pack(problem)
        seconds.append(time.perf_counter() - started)
    return (path.name, len(problem), result.lower_bound, problem.capacity, result.peak,
            round(result.ratio, 3), result.fits, result.strategy,
            round(statistics.median(seconds), 3))


def timed_exact(problem: Problem, repeat: int, **options: object) -> tuple:
    from memplan.pack.search.exact import solve_exact

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


def process_seconds(command: list[str], repeat: int, time_limit: float) -> float | str:
    """Median wall time of a command, or why it failed."""
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=time_limit)
        except subprocess.TimeoutExpired:
            return "timeout"
        except subprocess.CalledProcessError as err:
            return f"exit {err.returncode}"
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def minimalloc_seconds(binary: Path, path: Path, problem: Problem, repeat: int,
                       time_limit: float) -> float | str:
    """Median wall time of minimalloc fitting the file's capacity, or why it failed."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plan.csv"
        command = [str(binary), f"--capacity={problem.capacity}", f"--input={path}",
                   f"--output={out}"]
        seconds = process_seconds(command, repeat, time_limit)
        if not out.exists():
            return "no plan" if isinstance(seconds, float) else seconds
        placed = {b.id: b.offset for b in read_problem(out).buffers}
        validate(problem, Solution(tuple(placed[b.id] for b in problem.buffers)))
    return seconds


def warm_up_exact() -> float:
    from memplan.pack.search.exact import solve_exact

    started = time.perf_counter()
    # Two aligned buffers: the heuristics leave a gap, so the search must run.
    tiny = Problem([Buffer("a", 0, 2, 3, 4), Buffer("b", 1, 3, 3, 4)])
    solve_exact(tiny, minimize=True)
    return time.perf_counter() - started


def _versus_minimalloc(binary: Path, path: Path, args: argparse.Namespace) -> tuple:
    memplan = str(Path(sys.executable).with_name("memplan"))
    ours = process_seconds([memplan, "pack", str(path), "--exact", "--summary"], args.repeat,
                           args.time_limit)
    theirs = minimalloc_seconds(binary, path, read_problem(path), args.repeat, args.time_limit)
    ratio = "-" if isinstance(ours, str) or isinstance(theirs, str) else f"{theirs / ours:.1f}x"
    return (_shown(ours), _shown(theirs), ratio)


def _shown(seconds: float | str) -> float | str:
    return seconds if isinstance(seconds, str) else round(seconds, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--exact", action="store_true", help="fit and minimise exactly")
    parser.add_argument("--time-limit", type=float, default=60.0, help="per exact solve")
    parser.add_argument("--workers", type=int, default=None,
                        help="threads for the exact preorders (default: one per core, at most 3)")
    parser.add_argument("--minimalloc", type=Path, default=None, metavar="BINARY",
                        help="also time google/minimalloc's solver (with --exact)")
    args = parser.parse_args()
    paths = sorted(args.directory.glob("*.csv"))
    if not paths:
        print(f"no CSV files in {args.directory} (give the folder of minimalloc instances)",
              file=sys.stderr)
        return 2
    if args.exact:
        print(f"loading the compiled search: {warm_up_exact():.2f} s")
        rows = [exact_row(p, args.repeat, args.time_limit, args.workers) for p in paths]
        headers = EXACT_HEADERS
        if args.minimalloc is not None:
            headers += ("memplan process s", "minimalloc s", "ratio")
            rows = [row + _versus_minimalloc(args.minimalloc, p, args)
                    for p, row in zip(paths, rows, strict=True)]
        print(format_table(headers, rows))
    else:
        print(format_table(GREEDY_HEADERS, [greedy_row(p, args.repeat) for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
