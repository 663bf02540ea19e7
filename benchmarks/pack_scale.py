"""The planner at scale: greedy and improved peaks, and their seconds, one row per instance.

    python benchmarks/pack_scale.py [--large DIR] [--minimalloc-dir DIR] [--challenging DIR]
                                    [--budget S] [--repeat N] [--sizes 1000,10000,60000]
                                    [--only NAME,...] [--minimalloc BINARY]

Instances: the CSV files of --large (idealloc's suite: cappadokes/idealloc's
benchmarks/iopddl/G_1.csv and S_1.csv and benchmarks/somas_tensors/resnet50.csv, fetched
by you outside this repository; none when the folder is absent), minimalloc's A-F
(--minimalloc-dir, default tests/data/minimalloc) and G-K (--challenging: google/minimalloc's
benchmarks/challenging, fetched by you outside this repository), and generated
ones: `concat-N`, A-F repeated one after another in time until N buffers
(independent partitions; every part's optimum is known or below A's, so the
whole's optimum is 1048576), and `overlay-N`, two such chains in opposite
orders sharing one time axis (optimum unknown), listed one chain after the
other, and the same buffers listed by start time (`overlay-N-by-start`) and
in a shuffled order (`overlay-N-shuffled`, a fixed seed): the planner must not
depend on the order of the file. With G-K present, the
concatenations A+B, A+B+C+D and C+K+J are added.

Columns: buffers; the lower bound; `memplan.pack.pack` (greedy, ten
strategies) peak and seconds, median of N runs (wall and CPU: the machine is
shared, CPU time is the steadier figure); `pack(problem, PackOptions(minimize=True,
time_limit=S))` peak, status and seconds (one run; the limit covers the whole
call); the ratio of that peak to the bound; the known optimum where there is
one. Then, for A-K and the concatenations, the exact solver fitting capacity
1048576, median of N, beside the sum of the parts' medians. With --minimalloc
BINARY (google/minimalloc's solver, built by you outside this repository), for
A-K: its median wall time fitting the file's capacity beside that of a whole
`memplan pack FILE --exact` process (benchmarks/pack.py).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from memplan.pack import Buffer, PackOptions, Problem, lower_bound, pack, read_problem
from memplan.report.table import format_table

ROOT = Path(__file__).resolve().parents[1]
LARGE_DIR = ROOT.parent / "shared" / "data" / "large"  # where the project's machines keep them
MINIMALLOC_DIR = ROOT / "tests" / "data" / "minimalloc"
# Proven by memplan's exact solver (docs/solver.md, and this benchmark for G-K).
KNOWN_OPTIMA = {"A": 1048576, "B": 1048576, "C": 1039360, "E": 1048576, "F": 1048576,
                "G": 1048576, "H": 1048576, "I": 1048576, "K": 1048576}
# Open optima, with the lowest plan known: a concatenation's optimum is still
# known when a part with a known optimum reaches higher.
KNOWN_PLANS = {"D": 998400, "J": 1048576}
HEADERS = ("instance", "buffers", "lower bound", "greedy peak", "greedy s", "greedy cpu s",
           "improved peak", "status", "improved s", "ratio", "known optimum")


def concatenate(problems: list[Problem]) -> Problem:
    """The problems one after another in time: independent partitions."""
    buffers: list[Buffer] = []
    shift = 0
    for k, problem in enumerate(problems):
        first = min(b.start for b in problem.buffers)
        for b in problem.buffers:
            buffers.append(Buffer(f"{k}.{b.id}", b.start - first + shift, b.end - first + shift,
                                  b.size, b.alignment, b.offset))
        shift += max(b.end for b in problem.buffers) - first
    return Problem(buffers)


def overlay(first: Problem, second: Problem) -> Problem:
    """Both problems on one time axis: their buffers meet, nothing splits."""
    return Problem([*(Buffer(f"x.{b.id}", b.start, b.end, b.size, b.alignment)
                      for b in first.buffers),
                    *(Buffer(f"y.{b.id}", b.start, b.end, b.size, b.alignment)
                      for b in second.buffers)])


def reordered(buffers: tuple[Buffer, ...]) -> list[tuple[str, list[Buffer]]]:
    """The same buffers by start time, and shuffled (a fixed seed)."""
    shuffled = list(buffers)
    random.Random(0).shuffle(shuffled)
    return [("by-start", sorted(buffers, key=lambda b: (b.start, b.end, b.id))),
            ("shuffled", shuffled)]


def chain(parts: list[Problem], n: int) -> list[Problem]:
    """Parts taken in turn until they hold at least n buffers."""
    out: list[Problem] = []
    count = 0
    while count < n:
        out.append(parts[len(out) % len(parts)])
        count += len(out[-1].buffers)
    return out


def instances(args: argparse.Namespace) -> list[tuple[str, Problem, int | None]]:
    found: list[tuple[str, Problem, int | None]] = []
    named: dict[str, Problem] = {}
    for directory in (args.minimalloc_dir, args.challenging):
        if directory is None:
            continue
        for path in sorted(directory.glob("[A-K].*.csv")):
            named[path.name.split(".")[0]] = read_problem(path)
    for path in sorted(args.large.glob("*.csv")):
        found.append((path.stem, read_problem(path), None))
    for name, problem in sorted(named.items()):
        found.append((name, problem, KNOWN_OPTIMA.get(name)))
    base = [named[k] for k in "ABCDEF" if k in named]
    if len(base) == 6:
        for n in args.sizes:
            parts = chain(base, n)
            concat = concatenate(parts)
            found.append((f"concat-{len(concat.buffers)}", concat, KNOWN_OPTIMA["A"]))
            reverse = concatenate(chain(base[::-1], n))
            both = overlay(concat, reverse)
            name = f"overlay-{2 * len(concat.buffers)}"
            found.append((name, both, None))
            found.extend((f"{name}-{how}", Problem(buffers), None)
                         for how, buffers in reordered(both.buffers))
        for names in ("AB", "ABCD", "CKJ"):
            if all(k in named for k in names):
                known = max(KNOWN_OPTIMA.get(k, 0) for k in names)
                optimum = known if all(KNOWN_OPTIMA.get(k, KNOWN_PLANS.get(k, known + 1))
                                       <= known for k in names) else None
                found.append(("+".join(names), concatenate([named[k] for k in names]), optimum))
    if args.only:
        found = [row for row in found if row[0] in args.only]
    return found


def row(name: str, problem: Problem, known: int | None, args: argparse.Namespace) -> tuple:
    wall, cpu = [], []
    for _ in range(args.repeat):
        # A new Problem each time: the planner keeps the last problem's columns and runs.
        fresh = Problem(problem.buffers, problem.capacity)
        started, started_cpu = time.perf_counter(), time.process_time()
        greedy = pack(fresh)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    problem = Problem(problem.buffers, problem.capacity)
    started = time.perf_counter()
    improved = pack(problem, PackOptions(minimize=True, time_limit=args.budget))
    improved_seconds = time.perf_counter() - started
    bound = lower_bound(problem)
    return (name, len(problem.buffers), bound, greedy.peak, round(statistics.median(wall), 2),
            round(statistics.median(cpu), 2), improved.peak, improved.status,
            round(improved_seconds, 2), f"{improved.peak / bound:.4f}" if bound else "-",
            known if known is not None else "-")


FIT_HEADERS = ("instance", "buffers", "fit status", "fit s", "fit cpu s", "sum of parts s")


def fit_rows(fits: list[tuple[str, Problem]], args: argparse.Namespace) -> list[tuple]:
    """The exact solver fitting capacity 1048576 (`memplan pack FILE --exact`), median of N;
    a concatenation beside the sum of its parts' medians."""
    from memplan.pack.search.exact import solve_exact

    seconds: dict[str, float] = {}
    rows = []
    for name, problem in fits:
        wall, cpu = [], []
        for _ in range(args.repeat):
            problem = Problem(problem.buffers, problem.capacity)
            started_cpu = time.process_time()
            result = solve_exact(problem, capacity=1048576, time_limit=60)
            wall.append(result.seconds)
            cpu.append(time.process_time() - started_cpu)
        seconds[name] = statistics.median(wall)
        parts = name.split("+")
        total = (round(sum(seconds[k] for k in parts), 2)
                 if len(parts) > 1 and all(k in seconds for k in parts) else "-")
        rows.append((name, len(problem.buffers), result.status, round(seconds[name], 2),
                     round(statistics.median(cpu), 2), total))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=LARGE_DIR)
    parser.add_argument("--minimalloc-dir", type=Path, default=MINIMALLOC_DIR)
    parser.add_argument("--challenging", type=Path, default=None, metavar="DIR",
                        help="google/minimalloc's benchmarks/challenging (G-K)")
    parser.add_argument("--budget", type=float, default=10.0, help="time limit per improved run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000,60000",
                        help="buffers of the generated instances")
    parser.add_argument("--only", default="", help="comma-separated instance names")
    parser.add_argument("--minimalloc", type=Path, default=None, metavar="BINARY")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.only = {s for s in args.only.split(",") if s}
    # Load (or compile) the compiled code before anything is timed.
    pack(concatenate([Problem([Buffer("a", 0, 2, 3), Buffer("b", 1, 3, 2)])] * 300))
    pack(Problem([Buffer("a", 0, 2, 3, 4), Buffer("b", 1, 3, 3, 4)]), PackOptions(minimize=True))
    rows = []
    for name, problem, known in instances(args):
        rows.append(row(name, problem, known, args))
        print(" ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    print(format_table(HEADERS, rows))
    fits = [(name, problem) for name, problem, _ in instances(args)
            if len(name) == 1 or "+" in name]
    if fits:
        print(format_table(FIT_HEADERS, fit_rows(fits, args)))
    if args.minimalloc is not None:
        from pack import _versus_minimalloc  # benchmarks/pack.py, run the same way

        args.time_limit = 60.0
        paths = [p for d in (args.minimalloc_dir, args.challenging) if d is not None
                 for p in sorted(d.glob("[A-K].*.csv"))]
        print(format_table(("instance", "memplan process s", "minimalloc s", "ratio"),
                           [(p.stem, *_versus_minimalloc(args.minimalloc, p, args))
                            for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
