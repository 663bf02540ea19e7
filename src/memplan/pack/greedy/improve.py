"""Lower a large plan's peak by re-running the greedy packers in learned orders.

Squeaky-wheel search (Joslin and Clements, JAIR 1999), in the spirit of Arm
Vela's HillClimb allocator, which reorders allocations around the peak: after
each greedy run, the buffers that ended high (above the midpoint between the
lower bound and the best peak) move to the front of that strategy's order, in
their order, and the strategy runs again. A buffer placed early rests low, so
the ones that made the peak get first pick next time. The strategies take
turns; the compiled core makes a run cost a fraction of a second at 30,000
buffers, so a few seconds buy dozens of runs.

Measured on ../shared/data/large/S_1.csv (docs/benchmarks.md): the greedy
start is 2.49% above the bound, three runs of `duration/best-fit` reordered
this way reach 0.13%. Re-packing a window of time around the peak buffer
with the others fixed (large-neighbourhood search) was tried first: S_1's peak
buffer lives through 11,500 of its 20,600 sections, so every window holds
14,000 buffers, took 2 s, and lowered the peak by 5 bytes.

Anytime and monotone: the plan held is the best run so far (never higher than
the plan given). The caller validates what it returns (search/exact.py does, for
every plan it returns).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..arrays import problem_arrays
from ..bound import lower_bound
from ..problem import Problem, Solution
from .heuristics import PACE_MARGIN, greedy_runs, place_arrays

PROMOTE_ABOVE = 0.5  # share of the way from the bound to the best peak
# Work allowed, in buffers placed (a run places every buffer once): a count, not a
# share of the time, so that the plan does not depend on the machine's load. S_1
# (28,526 buffers) gets 70 runs; its docs figure needed three.
PLACEMENTS = 2_000_000


def improve(
    problem: Problem, solution: Solution, deadline: float, target: int,
    on_progress: Callable[[int], None] | None = None, placements: int = PLACEMENTS,
) -> Solution:
    """A plan peaking no higher than `solution`, lower where the budget allows; stops
    once the peak is at most `target`, after `placements` buffers placed (at least
    one run), or at the deadline (time.perf_counter: the outer stop)."""
    arrays = problem_arrays(problem)
    if len(problem.buffers) == 0:
        return solution
    bound = lower_bound(problem)
    best = np.array(solution.offsets, dtype=np.int64)
    best_peak = int((best + arrays.sizes).max())
    best_name = solution.strategy
    # Each strategy's current order and the tops its last run gave, lowest
    # peak first: the runs made for the greedy start where there are any.
    runs = sorted(greedy_runs(problem), key=lambda run: run.peak)
    turns = [(run.order_name, run.fit, run.order) for run in runs]
    tops = [run.offsets + arrays.sizes for run in runs]
    rounds = 0
    max_rounds = max(1, placements // len(problem.buffers))
    # Seconds the last run took: no run starts that would end past the deadline.
    pace = max(run.seconds for run in runs)
    while (best_peak > max(target, bound) and rounds < max_rounds
           and time.perf_counter() + PACE_MARGIN * pace < deadline):
        started = time.perf_counter()
        k = rounds % len(turns)
        name, fit, order = turns[k]
        threshold = bound + (best_peak - bound) * PROMOTE_ABOVE
        high = tops[k][order] > threshold
        order = np.concatenate([order[high], order[~high]])
        offsets = place_arrays(arrays, order, best_fit=(fit == "best-fit"))
        turns[k] = (name, fit, order)
        tops[k] = offsets + arrays.sizes
        peak = int(tops[k].max())
        if peak < best_peak:
            best, best_peak, best_name = offsets, peak, f"{name}/{fit} reordered"
            if on_progress is not None:
                on_progress(best_peak)
        rounds += 1
        pace = time.perf_counter() - started
    return Solution(tuple(best.tolist()), best_name)
