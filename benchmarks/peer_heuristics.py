"""Greedy heuristics of other planners beside memplan's portfolio, peak / lower bound.

    python benchmarks/peer_heuristics.py FILE.csv ... [--zero-waste N:SEED ...]

For each instance (a CSV, or a zero-waste instance made by benchmarks/zero_waste.py),
prints the peak over the lower bound of:
- memplan: `pack` as the CLI runs it (the portfolio, each time partition on its own), and
  the greedy orders it does not run, with its first fit and best fit;
- XLA's GlobalDecreasingSizeBestFitHeap, written from its description: spatial order
  (size, then lifetime, longest first) and temporal order (lifetime, then size), each
  with best fit, and the lower of the two (XLA's ChooseBestHeapAlgorithm);
- TVM's USMP greedy_by_size (size, then number of conflicts) and greedy_by_conflicts
  (number of conflicts, then size), placing each buffer above every placed buffer it
  meets in time (TVM does not fill gaps), each order also with memplan's fits;
- TFLite Micro's GreedyMemoryPlanner: size, then allocation time, first fit.
and the seconds of the slowest memplan strategy's run beside the new orders'.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from memplan.pack import PackOptions, Problem, lower_bound, pack, read_problem
from memplan.pack.arrays import problem_arrays
from memplan.pack.greedy import heuristics
from memplan.pack.greedy.heuristics import ORDERS, place_arrays


def _lexsort(*keys: np.ndarray) -> np.ndarray:
    return np.lexsort(keys[::-1])


def _conflicts(a) -> np.ndarray:
    """How many other buffers each buffer meets in time."""
    starts, ends = np.sort(a.starts), np.sort(a.ends)
    began = np.searchsorted(starts, a.ends, side="left")  # buffers starting before my end
    ended = np.searchsorted(ends, a.starts, side="right")  # buffers ended by my start
    return began - ended - 1


def _peer_orders(a) -> dict[str, np.ndarray]:
    n = np.arange(len(a.sizes))
    duration = a.ends - a.starts
    conflicts = _conflicts(a)
    return {
        "xla-spatial": _lexsort(-a.sizes, -duration, n),
        "xla-temporal": _lexsort(-duration, -a.sizes, n),
        "tvm-size": _lexsort(-a.sizes, -conflicts, n),
        "tvm-conflicts": _lexsort(-conflicts, -a.sizes, n),
        "tflm-size": _lexsort(-a.sizes, a.starts, n),
    }


def _above_all(a, order: np.ndarray) -> np.ndarray:
    """TVM's placement: each buffer just above the highest placed buffer it meets."""
    offsets = np.zeros(len(a.sizes), dtype=np.int64)
    tops = np.full(len(a.sizes), -1, dtype=np.int64)  # -1: not placed yet
    for i in order.tolist():
        meets = (a.starts < a.ends[i]) & (a.ends > a.starts[i])
        top = int(tops[meets].max(initial=0))
        align = int(a.aligns[i])
        offsets[i] = -(-max(top, 0) // align) * align
        tops[i] = offsets[i] + a.sizes[i]
    return offsets


def evaluate(name: str, problem: Problem) -> list[tuple[str, str, float, float]]:
    """(instance, heuristic, peak / bound, seconds) rows."""
    bound = lower_bound(problem)
    rows = []
    started = time.perf_counter()
    best = pack(Problem(problem.buffers), PackOptions())
    rows.append((name, "memplan portfolio", best.peak / bound, time.perf_counter() - started))
    a = problem_arrays(problem)

    def run(label: str, order: np.ndarray, fit: str) -> float:
        started = time.perf_counter()
        if fit == "above-all":
            offsets = _above_all(a, order)
        else:
            offsets = place_arrays(a, order, best_fit=fit == "best-fit")
        peak = int((offsets + a.sizes).max(initial=0))
        rows.append((name, f"{label}/{fit}", peak / bound, time.perf_counter() - started))
        return peak / bound

    for order_name in ORDERS:
        for fit in heuristics.FITS:
            run(order_name, ORDERS[order_name](a), fit)
    peers = _peer_orders(a)
    xla = min(run(k, peers[k], "best-fit") for k in ("xla-spatial", "xla-temporal"))
    rows.append((name, "XLA (lower of the two)", xla, 0.0))
    for k in ("tvm-size", "tvm-conflicts"):
        run(k, peers[k], "above-all")
        for fit in heuristics.FITS:
            run(k, peers[k], fit)
    run("tflm-size", peers["tflm-size"], "first-fit")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--zero-waste", action="append", default=[], metavar="N:SEED")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from zero_waste import zero_waste

    instances = [(p.name, read_problem(p)) for p in args.files]
    for spec in args.zero_waste:
        n, seed = (int(x) for x in spec.split(":"))
        instances.append((f"zero_waste {n} s{seed}", zero_waste(n, seed)))
    heuristics.prepare_greedy(10**6)
    print(f"{'instance':22s} {'heuristic':28s} {'peak/bound':>10s} {'seconds':>8s}")
    for name, problem in instances:
        for row in evaluate(name, problem):
            print(f"{row[0]:22s} {row[1]:28s} {row[2]:10.4f} {row[3]:8.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
