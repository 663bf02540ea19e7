"""Decide time windows of an instance at a target peak: lower bounds from subsets.

    python benchmarks/windows.py FILE.csv --target UNITS [--time-limit S] A-B [A-B ...]
    python benchmarks/windows.py FILE.csv --write DIR A-B [A-B ...]

A window A-B keeps the buffers live in any of sections A..B-1 (sections as in
memplan.pack.search.sections: one per distinct end time). Every plan of the whole
instance is a plan of the window, so a window proven infeasible at a target
proves the whole instance infeasible there: a lower bound the live-bytes bound
does not see. A window that packs at the target says that this window cannot
raise the bound. The target is in units of the instance's grain (1024 bytes on
the minimalloc instances); each window is decided on one thread. With --write, each
window is written as a CSV instead (`DIR/<FILE's stem>.w<A>-<B>.csv`, no capacity):
an instance of the trace's own buffers for `memplan pack`, as a trace's window.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from memplan.pack import Problem, read_problem
from memplan.pack.search.sections import Sweep, sweep
from memplan.report.table import format_table

HEADERS = ("window", "buffers", "target", "status", "seconds", "nodes")


def window(problem: Problem, sections: Sweep, lo: int, hi: int,
           capacity: int | None) -> Problem:
    return Problem([problem.buffers[i] for i in sections.buffers_in(lo, hi)], capacity)


def main() -> int:
    from memplan.pack.search.exact import peak_grain, solve_exact

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("windows", nargs="+", help="section ranges A-B (B exclusive)")
    parser.add_argument("--target", type=int, help="peak, in grains")
    parser.add_argument("--write", type=Path, metavar="DIR",
                        help="write each window as a CSV into DIR instead of deciding it")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    problem = read_problem(args.file)
    sections = sweep(problem)
    if args.write is not None:
        for spec in args.windows:
            lo, hi = (int(x) for x in spec.split("-"))
            part = window(problem, sections, lo, hi, None)
            path = args.write / f"{args.file.name.split('.')[0]}.w{lo}-{hi}.csv"
            with path.open("w", newline="") as f:
                rows = csv.writer(f, lineterminator="\n")
                rows.writerow(["id", "lower", "upper", "size"])
                rows.writerows([b.id, b.start, b.end, b.size] for b in part.buffers)
            print(f"{path}: {len(part)} buffers")
        return 0
    if args.target is None:
        parser.error("--target is needed to decide windows")
    target = args.target * peak_grain(problem)
    rows = []
    for spec in args.windows:
        lo, hi = (int(x) for x in spec.split("-"))
        part = window(problem, sections, lo, hi, target)
        result = solve_exact(part, time_limit=args.time_limit, workers=1)
        rows.append((spec, len(part), target, result.status, round(result.seconds, 1),
                     result.nodes))
    print(format_table(HEADERS, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
