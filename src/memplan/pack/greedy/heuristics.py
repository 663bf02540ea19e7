"""Greedy packers: place buffers one by one in some order, each at a gap.

The orders are the ones production planners use:
- `size`: largest first, the longest-lived first among equal sizes (XLA's spatial order);
- `size-start`: largest first, the first allocated first among equal sizes (TFLite
  Micro's GreedyMemoryPlanner; on idealloc's S_1 first fit gives 1.0167 of the
  bound where `size` gives 1.0293, best fit 1.0158 against 1.0249);
- `duration`: longest-lived first (XLA's temporal order);
- `area`: largest size x lifetime first;
- `breadth`: buffers alive at the busiest moments first (TFLite greedy-by-breadth);
- `start`: by allocation time, as a runtime allocator would see them;
- `conflicts`: the buffers alive beside the most others first, the largest first among
  equal counts (TVM USMP's greedy_by_conflicts; on idealloc's S_1 best fit gives 1.0025
  of the bound where the other orders give 1.0158 at best, and it is lower on 4 of 20
  zero-waste instances: docs/benchmarks.md, "Other planners' heuristics").
Each order is tried with best fit (smallest gap that holds the buffer, as in
XLA's GlobalDecreasingSizeBestFitHeap) and first fit (lowest gap). All runs
are cheap, so `pack_heuristic` runs them all and keeps the lowest peak.

Large problems go through the compiled core (greedy_core.py), which finds a
buffer's gaps in O(log n) block lists instead of scanning every placed buffer;
small ones, and the rare ones with empty buffers or lifetimes, through the
plain scan here. Both give the same plan for the same order and fit.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..arrays import ProblemArrays, distinct, problem_arrays
from ..problem import Problem, Solution
from .parts import Part, merge, split

Order = Callable[[ProblemArrays], np.ndarray]

# A run may take longer than the one before it (a shared machine): under a
# deadline, one starts only when this multiple of the last run's time is left.
PACE_MARGIN = 1.25
# Greedy runs side by side on threads (the compiled core releases the GIL), for
# problems large enough that a run outlasts starting a thread many times over.
GREEDY_WORKERS = 2
GREEDY_THREADS_FROM = 2000  # buffers
# ... and up to this many: each run's block lists take up to 700 B per buffer, and two
# side by side on 1,048,576 buffers took `memplan pack` to 2.2 GiB (docs/reliability.md).
GREEDY_THREADS_UP_TO = 1 << 19


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _breadth(arrays: ProblemArrays) -> np.ndarray:
    """For each buffer, the most bytes live at any moment of its lifetime."""
    times, live = arrays.profile
    lo = np.searchsorted(times, arrays.starts, side="left")  # every start is an event time
    hi = np.searchsorted(times, arrays.ends, side="left")
    return _range_max(live, lo, hi)


def _range_max(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """max(values[lo[i]:hi[i]]) for every i (all ranges non-empty), by a sparse table."""
    table = [values]
    width = 1
    while 2 * width <= len(values):
        prev = table[-1]
        table.append(np.maximum(prev[:-width], prev[width:]))
        width *= 2
    length = hi - lo
    level = np.zeros(len(lo), dtype=np.int64)
    level[length > 0] = np.floor(np.log2(length[length > 0])).astype(np.int64)
    # log2 in floating point may be one off at exact powers of two: correct it.
    level[(1 << (level + 1)) <= length] += 1
    level[(1 << level) > np.maximum(length, 1)] -= 1
    out = np.empty(len(lo), dtype=values.dtype)
    for k in distinct(level):
        sel = level == k
        out[sel] = np.maximum(table[k][lo[sel]], table[k][hi[sel] - (1 << k)])
    return out


def _conflicts(arrays: ProblemArrays) -> np.ndarray:
    """For each buffer, how many others it meets in time: those starting before its end,
    less those ended by its start, less itself."""
    began = np.searchsorted(np.sort(arrays.starts), arrays.ends, side="left")
    ended = np.searchsorted(np.sort(arrays.ends), arrays.starts, side="right")
    return began - ended - 1


def _lexsort(*keys: np.ndarray) -> np.ndarray:
    """Indices sorted by `keys` (most significant first), ties by index."""
    return np.lexsort(keys[::-1])


def _area_order(a: ProblemArrays) -> np.ndarray:
    durations = a.ends - a.starts
    if int(a.sizes.max(initial=0)) * int(durations.max(initial=0)) < 2**62:
        return _lexsort(-(a.sizes * durations), -a.sizes)
    # Areas past int64: sort exactly with Python integers.
    areas = [int(s) * int(d) for s, d in zip(a.sizes, durations, strict=True)]
    order = sorted(range(len(areas)), key=lambda i: (-areas[i], -int(a.sizes[i]), i))
    return np.array(order, dtype=np.int64)


ORDERS: dict[str, Order] = {
    "size": lambda a: _lexsort(-a.sizes, -(a.ends - a.starts), a.starts),
    "size-start": lambda a: _lexsort(-a.sizes, a.starts),
    "duration": lambda a: _lexsort(-(a.ends - a.starts), -a.sizes, a.starts),
    "area": _area_order,
    "breadth": lambda a: _lexsort(-_breadth(a), -a.sizes, a.starts),
    "start": lambda a: _lexsort(a.starts, -a.sizes),
    "conflicts": lambda a: _lexsort(-_conflicts(a), -a.sizes),
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
    order_array = np.asarray(order, dtype=np.int64)
    return place_arrays(problem_arrays(problem), order_array, best_fit).tolist()


def place_arrays(arrays: ProblemArrays, order: np.ndarray, best_fit: bool) -> np.ndarray:
    """Offsets of the buffers placed in `order` (pinned ones first, where pinned)."""
    if arrays.regular and kernels.worth_compiling(len(arrays.sizes)):
        return kernels.place_in_order(arrays.section_lo, arrays.section_hi, arrays.n_sections,
                              arrays.sizes, arrays.aligns, arrays.fixed, order, best_fit)
    return place_by_scan(arrays, order, best_fit)


def prepare_greedy(buffers: int) -> None:
    """Have the compiled greedy core ready before timing a problem this large."""
    if not kernels.worth_compiling(buffers):
        return
    one = np.zeros(1, np.int64)
    kernels.prepare("place_in_order", "greedy packer", lambda: kernels.place_in_order(
        one, one + 1, 1, one + 1, one + 1, one - 1, one, True))


def place_by_scan(arrays: ProblemArrays, order: np.ndarray, best_fit: bool) -> np.ndarray:
    """Each buffer at the gap `choose_offset` picks among all placed buffers it meets."""
    starts, ends, sizes = arrays.starts, arrays.ends, arrays.sizes
    n = len(sizes)
    offsets = np.zeros(n, dtype=np.int64)
    placed = arrays.fixed >= 0
    offsets[placed] = arrays.fixed[placed]
    for i in order.tolist():
        if placed[i]:
            continue
        neighbours = np.flatnonzero(placed & (starts < ends[i]) & (ends > starts[i]))
        lows = offsets[neighbours]
        by_low = np.argsort(lows, kind="stable")
        tops = lows + sizes[neighbours]
        busy = list(zip(lows[by_low].tolist(), tops[by_low].tolist(), strict=True))
        offsets[i] = choose_offset(busy, int(sizes[i]), int(arrays.aligns[i]), best_fit)
        placed[i] = True
    return offsets


def run_strategy(problem: Problem, order_name: str, fit: str) -> Solution:
    arrays = problem_arrays(problem)
    offsets = place_arrays(arrays, ORDERS[order_name](arrays), best_fit=(fit == "best-fit"))
    return Solution(tuple(offsets.tolist()), strategy=f"{order_name}/{fit}")


def all_strategies() -> list[tuple[str, str]]:
    return [(order, fit) for order in ORDERS for fit in FITS]


# From this many buffers a problem gets the cheap portfolio. Measured on idealloc's
# instances (docs/benchmarks.md, "A million buffers"): on Y_1 (62,185 buffers) size
# order with first fit reaches the best peak of all ten strategies (1.0024 of the
# bound) in 1.2 s where best fit takes 5 s for the same peak, and start, area and
# breadth orders end 0.6-2.7% higher; on S_1 (28,526, below this size) best fit
# is 0.4% lower and keeps its turn. TFLite Micro's size-start order with first fit
# costs one more first-fit run (0.7 s on S_1 where size/first-fit takes 1.0 s) and
# on S_1 gives 1.0167 where the other two give 1.0293 and 1.0418.
CHEAP_PORTFOLIO_FROM = 50_000
CHEAP_PORTFOLIO = (("size", "first-fit"), ("duration", "first-fit"),
                   ("size-start", "first-fit"))


def portfolio(buffers: int) -> list[tuple[str, str]]:
    """The strategies a problem of this many buffers is packed with: every one below
    CHEAP_PORTFOLIO_FROM, the cheap ones from there (all of them always run: the
    order only breaks ties, first listed first)."""
    if buffers >= CHEAP_PORTFOLIO_FROM:
        return list(CHEAP_PORTFOLIO)
    return all_strategies()


# Asked only to fit a capacity (`pack --exact`), the portfolio stops at the first plan
# that fits, trying first the strategies that most often gave the lowest peak: ranked by
# how often each reached the lowest of all fourteen (ties counted for each) on A-F and
# seeds 1-3 of benchmarks/pack_instances.py's tpu and uni kinds at 120, 500 and 2,000
# buffers (24 instances; `python benchmarks/pack_instances.py rank`; the four never
# lowest there last, roughly by their mean peak). minimalloc, too, stops at its first fit.
FIT_FIRST = (("size-start", "first-fit"), ("size", "first-fit"), ("breadth", "first-fit"),
             ("breadth", "best-fit"), ("size-start", "best-fit"), ("size", "best-fit"),
             ("area", "best-fit"), ("area", "first-fit"), ("duration", "best-fit"),
             ("start", "best-fit"), ("duration", "first-fit"), ("conflicts", "best-fit"),
             ("conflicts", "first-fit"), ("start", "first-fit"))


@dataclass(frozen=True)
class GreedyRun:
    order_name: str
    fit: str
    order: np.ndarray  # the buffer indices in the order placed
    offsets: np.ndarray
    peak: int
    seconds: float


def greedy_runs(problem: Problem, workers: int | None = None,
                fit: int | None = None, upto: int | None = None) -> list[GreedyRun]:
    """The runs of the problem's `portfolio`, in its order.

    With `fit` (a capacity), the runs go in FIT_FIRST's order and stop after the
    first `workers` at a time that holds a plan peaking at most `fit`; all of them
    run when none does (and only then are they kept for `improve.py`). `upto` (with
    `fit`) stops after that many strategies too; a later call on the same problem and
    capacity resumes after them instead of running them again.

    Runs go `workers` at a time (default: from GREEDY_THREADS_FROM buffers, one
    per core, at most GREEDY_WORKERS) on threads where the compiled core does
    the work, as it releases the GIL;
    the list is the same whatever the number of threads. There is no deadline:
    the greedy plan is the floor every caller builds on, and a time limit that
    skipped a strategy could give a worse plan than no limit at all (issue 25).
    The runs of the last RUNS_KEPT problems are kept for `improve.py`, which starts
    from them (a problem split into parts packs every part before improving any).
    """
    kept = _kept_runs.get(id(problem))
    if kept is not None and kept[0] is problem:
        return kept[1]
    arrays = problem_arrays(problem)
    if workers is None:
        workers = 1
        if GREEDY_THREADS_FROM <= len(arrays.sizes) <= GREEDY_THREADS_UP_TO:
            workers = min(GREEDY_WORKERS, os.cpu_count() or 1)
    if not (arrays.regular and kernels.worth_compiling(len(arrays.sizes))):
        workers = 1  # the plain scan holds the GIL: threads would only take turns
    orders: dict[str, np.ndarray] = {}

    def run(order_name: str, fit: str) -> GreedyRun:
        started = time.perf_counter()
        offsets = place_arrays(arrays, orders[order_name], best_fit=(fit == "best-fit"))
        peak = int((offsets + arrays.sizes).max(initial=0))
        return GreedyRun(order_name, fit, orders[order_name], offsets, peak,
                         time.perf_counter() - started)

    strategies = portfolio(len(arrays.sizes))
    if fit is not None:
        strategies.sort(key=FIT_FIRST.index)
    # Runs go in batches of `workers`, each batch's orders computed first (lazily: a
    # fit may end the runs before the costlier orders are needed).
    runs: list[GreedyRun] = []
    if fit is not None:
        paused = _paused_runs.pop(id(problem), None)
        if paused is not None and paused[0] is problem and paused[1] == fit:
            runs = list(paused[2])
            if min((r.peak for r in runs), default=fit + 1) <= fit:
                return runs
    batch = workers if fit is not None else len(strategies)
    pool = None
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for first in range(len(runs), len(strategies), batch):
            if upto is not None and first >= upto:
                with _kept_lock:
                    _paused_runs.clear()  # only the problem being searched resumes: keep no other
                    _paused_runs[id(problem)] = (problem, fit, runs)
                return runs
            chunk = strategies[first:first + batch]
            for order_name, _ in chunk:
                if order_name not in orders:
                    orders[order_name] = ORDERS[order_name](arrays)
            if pool is None:
                runs.extend(run(*strategy) for strategy in chunk)
            else:
                runs.extend(pool.map(lambda strategy: run(*strategy), chunk))
            if fit is not None and min(r.peak for r in runs) <= fit:
                return runs
    finally:
        if pool is not None:
            pool.shutdown()
    if fit is not None:  # none fits: all ran, listed and kept as without `fit`
        by_name = {(r.order_name, r.fit): r for r in runs}
        runs = [by_name[strategy] for strategy in portfolio(len(arrays.sizes))]
    with _kept_lock:  # parts may be packed on threads side by side
        _kept_runs[id(problem)] = (problem, runs)  # kept alive, the problem keeps its id
        while len(_kept_runs) > RUNS_KEPT:
            del _kept_runs[next(iter(_kept_runs))]  # the oldest
    return runs


RUNS_KEPT = 64
_kept_runs: dict[int, tuple[Problem, list[GreedyRun]]] = {}
# The runs of a portfolio stopped by `upto`, with the capacity they were to fit.
_paused_runs: dict[int, tuple[Problem, int, list[GreedyRun]]] = {}
_kept_lock = threading.Lock()


def pack_heuristic(problem: Problem, workers: int | None = None,
                   fit: int | None = None, upto: int | None = None) -> Solution:
    """The lowest peak of `greedy_runs` (first listed wins ties); with `fit`, of the
    runs up to the first plan that fits it (and at most `upto` of them)."""
    best = min(greedy_runs(problem, workers, fit, upto), key=lambda run: run.peak)
    return Solution(tuple(best.offsets.tolist()), strategy=f"{best.order_name}/{best.fit}")


def pack_by_parts(problem: Problem, parts: list[Part] | None = None,
                  fit: int | None = None, upto: int | None = None) -> Solution:
    """The best strategy of each time partition (`parts.split`), identical parts packed
    once. Parts do not interact, and a strategy places each part as it would alone, so
    this is never worse than the best single strategy over the whole, and cheaper: a
    million buffers in 16 parts pack in less CPU and half the memory. With `fit` (a
    capacity), each part stops at its first plan that fits it (`greedy_runs`); `upto`
    (one part only) stops it after that many strategies."""
    if parts is None:
        parts = split(problem)
    if len(parts) == 1:
        return pack_heuristic(problem, fit=fit, upto=upto)
    distinct: dict[tuple, Part] = {}
    for part in parts:
        distinct.setdefault(part.signature(), part)
    large = sum(len(p.problem.buffers) >= GREEDY_THREADS_FROM for p in distinct.values())
    if large >= 2:
        # Parts side by side, one thread each (the compiled core releases the GIL): two
        # runs of one part on two threads leave a core waiting at the end of every part.
        from concurrent.futures import ThreadPoolExecutor

        workers = min(GREEDY_WORKERS, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            packed = list(pool.map(lambda p: pack_heuristic(p.problem, workers=1, fit=fit),
                                   distinct.values()))
    else:
        packed = [pack_heuristic(p.problem, fit=fit) for p in distinct.values()]
    done = {key: part.shared(plan)
            for (key, part), plan in zip(distinct.items(), packed, strict=True)}
    plans = [part.own(done[part.signature()]) for part in parts]
    names = {plan.strategy for plan in plans}
    strategy = names.pop() if len(names) == 1 else "best per partition"
    return Solution(merge(len(problem.buffers), parts, plans), strategy)
