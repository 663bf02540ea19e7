"""Run the window bound (memplan.pack.search.windows) on its own, round by round.

    python benchmarks/window_bound.py FILE.csv [--seconds S] [--first-budget N]

Each round asks every window the lowest peak not yet ruled out under a node
budget that grows fourfold, as the minimising search does (which gives the
windows a fifth of its own budget, and caps their nodes). Prints, per round, the bound proven and,
per seed section, the largest window grown from it that packed at the bound
(sections lo-hi, hi exclusive) and the window it waits on; then the nodes and
the seconds. One thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from memplan.pack import lower_bound, read_problem
from memplan.report.table import format_table

HEADERS = ("node budget", "bound", "grains", "packed at the bound", "waiting", "nodes", "seconds")


def main() -> int:
    from memplan.pack.search.decide import load_search
    from memplan.pack.search.exact import peak_grain
    from memplan.pack.search.windows import WindowBound

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--seconds", type=float, default=60.0, help="start no round after")
    parser.add_argument("--first-budget", type=int, default=1 << 12)
    args = parser.parse_args()
    load_search()
    problem = read_problem(args.file)
    grain = peak_grain(problem)
    bound = -(-lower_bound(problem) // grain) * grain
    windows = WindowBound(problem, grain)
    print(f"{args.file.name}: {len(problem)} buffers, live-bytes bound {bound} "
          f"({bound // grain} grains of {grain})")
    rows = []
    started = time.perf_counter()
    budget = args.first_budget
    while time.perf_counter() - started < args.seconds:
        bound = windows.raise_bound(bound, budget)
        frontier = windows.frontier()
        packed = sorted({p for _, p, _ in frontier if p is not None})
        waiting = sorted({w for _, _, w in frontier})
        rows.append((budget, bound, bound // grain, _spans(packed), _spans(waiting),
                     windows.nodes, round(time.perf_counter() - started, 1)))
        budget *= 4
    print(format_table(HEADERS, rows))
    if windows.proof is not None:
        lo, hi = windows.proof.window
        print(f"proof: sections {lo}-{hi} ({windows.proof.buffers} buffers) do not pack "
              f"below {windows.proof.bound}")
    return 0


def _spans(windows: list[tuple[int, int]]) -> str:
    return " ".join(f"{lo}-{hi}" for lo, hi in windows) or "-"


if __name__ == "__main__":
    sys.exit(main())
