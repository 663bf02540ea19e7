"""Greedy packers: place buffers one by one in some order, each at a gap.

The orders are the ones production planners use:
- `size`: largest first (TFLite's greedy-by-size arena, XLA's spatial order);
- `duration`: longest-lived first (XLA's temporal order);
- `area`: largest size x lifetime first;
- `breadth`: buffers alive at the busiest moments first (TFLite greedy-by-breadth);
- `start`: by allocation time, as a runtime allocator would see them.
Each order is tried with best fit (smallest gap that holds the buffer, as in
XLA's GlobalDecreasingSizeBestFitHeap) and first fit (lowest gap). All runs
are cheap, so `pack_heuristic` runs them all and keeps the lowest peak.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .bound import live_bytes_profile
from .problem import Buffer, Problem, Solution

Order = Callable[[Problem], list[int]]


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _breadth(problem: Problem) -> list[int]:
    """For each buffer, the most bytes live at any moment of its lifetime."""
    profile = live_bytes_profile(problem)
    times = [t for t, _ in profile]
    result = []
    for b in problem.buffers:
        lo = np.searchsorted(times, b.start, side="right") - 1
        hi = np.searchsorted(times, b.end, side="left")
        result.append(max(live for _, live in profile[max(lo, 0):hi]))
    return result


def _sorted(problem: Problem, key: Callable[[int, Buffer], tuple]) -> list[int]:
    return sorted(range(len(problem.buffers)), key=lambda i: key(i, problem.buffers[i]))


def _by_breadth(problem: Problem) -> list[int]:
    breadth = _breadth(problem)
    return _sorted(problem, lambda i, b: (-breadth[i], -b.size, b.start, i))


ORDERS: dict[str, Order] = {
    "size": lambda p: _sorted(p, lambda i, b: (-b.size, -(b.end - b.start), b.start, i)),
    "duration": lambda p: _sorted(p, lambda i, b: (-(b.end - b.start), -b.size, b.start, i)),
    "area": lambda p: _sorted(p, lambda i, b: (-b.size * (b.end - b.start), -b.size, i)),
    "breadth": _by_breadth,
    "start": lambda p: _sorted(p, lambda i, b: (b.start, -b.size, i)),
}

FITS = ("best-fit", "first-fit")


def choose_offset(
    busy: Sequence[tuple[int, int]], size: int, alignment: int, best_fit: bool
) -> int:
    """Pick an offset for `size` bytes among `busy` address ranges (sorted by start)."""
    best_offset, best_gap = None, None
    cursor = 0
    for lo, hi in busy:
        candidate = _align_up(cursor, alignment)
        if candidate + size <= lo:
            if not best_fit:
                return candidate
            gap = lo - cursor
            if best_gap is None or gap < best_gap:
                best_offset, best_gap = candidate, gap
        cursor = max(cursor, hi)
    if best_offset is not None:
        return best_offset
    return _align_up(cursor, alignment)


def place_in_order(problem: Problem, order: Sequence[int], best_fit: bool) -> list[int]:
    """Place buffers in `order`; fixed-offset buffers are placed first, where pinned."""
    n = len(problem.buffers)
    starts = np.fromiter((b.start for b in problem.buffers), dtype=np.int64, count=n)
    ends = np.fromiter((b.end for b in problem.buffers), dtype=np.int64, count=n)
    offsets = np.zeros(n, dtype=np.int64)
    placed = np.zeros(n, dtype=bool)
    for i, b in enumerate(problem.buffers):
        if b.offset is not None:
            offsets[i], placed[i] = b.offset, True
    sizes = np.fromiter((b.size for b in problem.buffers), dtype=np.int64, count=n)
    for i in order:
        if placed[i]:
            continue
        b = problem.buffers[i]
        neighbours = np.flatnonzero(placed & (starts < b.end) & (ends > b.start))
        lows = offsets[neighbours]
        by_low = np.argsort(lows, kind="stable")
        tops = lows + sizes[neighbours]
        busy = list(zip(lows[by_low].tolist(), tops[by_low].tolist(), strict=True))
        offsets[i] = choose_offset(busy, b.size, b.alignment, best_fit)
        placed[i] = True
    return offsets.tolist()


def run_strategy(problem: Problem, order_name: str, fit: str) -> Solution:
    order = ORDERS[order_name](problem)
    offsets = place_in_order(problem, order, best_fit=(fit == "best-fit"))
    return Solution(tuple(offsets), strategy=f"{order_name}/{fit}")


def all_strategies() -> list[tuple[str, str]]:
    return [(order, fit) for order in ORDERS for fit in FITS]


def pack_heuristic(problem: Problem) -> Solution:
    """Run every order with every fit; keep the lowest peak (first listed wins ties)."""
    best: Solution | None = None
    best_peak = 0
    for order_name, fit in all_strategies():
        solution = run_strategy(problem, order_name, fit)
        peak = solution.peak(problem)
        if best is None or peak < best_peak:
            best, best_peak = solution, peak
    assert best is not None
    return best
