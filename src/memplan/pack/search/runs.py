"""Programs as runs of the input order: where to cut a listing of several
programs that share one time axis, found from the buffers' times and sizes.

A file that holds several programs planned together usually lists each
program's buffers together (one model's dump after another's), whatever its
ids are. A cut between two programs adds to the sum of the two sides' bounds
only what their busiest moments miss each other by (stacking programs pays
only when that is little). A cut inside a program splits its busiest moment
between the sides, and both keep most of it: on minimalloc's A-K, listed one
after the other, the cheapest cut inside each program adds 55 KiB (J) to
641 KiB (A) to its 1 MiB, the cuts between two programs at most 31 KiB.

`program_runs` minimises the sum of the runs' bounds for each number of runs
k: a DP over cut points on a grid of the input order (each run of at most
MAX_RUN buffers, so the exact search takes every run whole), in which a run's
first grid step does not count (a program's edge falls between grid points);
then each cut moves to the position within two steps where its two runs'
bounds sum least, or, where they tie, to where each buffer joins the run it
shares more allocation and free times with (a program's buffers start and end
at its own steps). The most runs whose cuts are all cheap (each adds at most
CUT_SHARE of the lower side's bound) are kept, counts being tried up to
MAX_REJECTED past the last cheap one: the sum of bounds alone would
merge programs (side by side, two programs have a bound no higher than the
sum of theirs), and the exact search cannot pack such a mixture (A and B,
fitted to 2 MiB: nothing below 2.69 MiB in 20 s; each alone: 0.4 s).
A listing whose programs each keep their rows in start (or end) order is cut
where those times go back, if such cuts are cheap, before any DP. A shuffled
listing has no cheap cuts and gives nothing. Within a program the order
matters: on A-K and A-F, programs listed in turn with their rows as in their
files, or sorted by start or end time, are found to the row; shuffled within
each program, the runs miss by a row, and a layer holding one row of another
program may no longer fit its bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..arrays import problem_arrays
from ..problem import Problem

GRID = 256  # cut points the DP considers, at most
MAX_RUN = 600  # buffers: a run the exact search takes whole, and the largest part a layer keeps
MIN_RUN_STEPS = 2  # grid steps: shorter runs are a few large buffers, not a program
CUT_SHARE = 1 / 16  # a cut adding more than this share of a side's bound is inside a program
MAX_REJECTED = 8  # numbers of runs tried in a row, none of them cheap, before giving up
MAX_RUNS = 64  # layers.MAX_LAYERS: more runs stack too many bounds to be worth it
MAX_CELLS = 1 << 21  # grid points x distinct times: the profiles built at once
REFINE_SWEEPS = 4


def program_runs(problem: Problem, below: int | None = None,
                 deadline: float = math.inf) -> list[int] | None:
    """The cut points (run ends, the last being the problem's length) of the
    input order into programs, or None when it does not fall into two or more
    runs of at most MAX_RUN buffers whose cuts are cheap. A number of runs
    whose best cores' bounds already sum to `below` (the plan held) is skipped:
    its runs, stacked, would hardly beat that plan. None, too, once the deadline
    (time.perf_counter) passes."""
    arrays = problem_arrays(problem)
    n = len(problem.buffers)
    times = np.unique(np.concatenate([arrays.starts, arrays.ends]))
    columns = _Columns(np.searchsorted(times, arrays.starts),
                       np.searchsorted(times, arrays.ends), arrays.sizes, len(times))
    step = -(-n // GRID)
    points = -(-n // step)  # grid points after 0: step, 2 step, ..., n
    longest, shortest = MAX_RUN // step, MIN_RUN_STEPS
    if longest < shortest or points * len(times) > MAX_CELLS:
        return None
    sorted_runs = _sorted_runs(columns, n)
    if sorted_runs is not None:
        return sorted_runs
    # live[p]: the live bytes over time of buffers [0, p * step).
    block = np.arange(n) // step
    delta = np.zeros((points, len(times) + 1), dtype=np.int64)
    np.add.at(delta, (block, columns.starts), columns.sizes)
    np.add.at(delta, (block, columns.ends), -columns.sizes)
    live = np.zeros((points + 1, len(times)), dtype=np.int64)
    np.cumsum(np.cumsum(delta, axis=1)[:, :-1], axis=0, out=live[1:])
    # core[w][a]: the bound of the run of w grid steps from point a without its
    # first step, whose buffers may still be the previous program's: a program's
    # edge off the grid costs its run nothing.
    core = {w: (live[w:] - live[1:points + 2 - w]).max(axis=1)
            for w in range(shortest, min(longest, points) + 1)}
    cores, back = _dp(core, points, shortest, longest)
    best: list[int] | None = None
    rejected = 0
    for k in range(2, len(back)):
        if time.perf_counter() > deadline:
            return None
        if below is not None and cores[k] >= below:
            continue
        found = []
        cuts = _grid_cuts(back, k, points)
        if cuts is not None:
            found.append(_refine([min(n, c * step) for c in cuts], step, columns, deadline))
        if best is not None and len(best) == k - 1:  # or one more cut in the best k - 1
            found.append(_refine(_split_one(best, step * shortest, columns, deadline), step,
                                 columns, deadline))
        if not found:
            continue
        cuts = min(found, key=lambda c: sum(columns.bound(lo, hi) for lo, hi in spans(c)))
        runs = spans(cuts)
        if all(_cheap(columns, runs[i], runs[i + 1]) for i in range(len(runs) - 1)):
            best, rejected = cuts, 0
            continue
        # A cut inside a program. Fewer runs may have had to merge programs, and
        # the grid's best k runs may miss an edge that more runs find again.
        rejected += 1
        if rejected == MAX_REJECTED:
            break
    return None if time.perf_counter() > deadline else best


def _sorted_runs(columns: _Columns, n: int) -> list[int] | None:
    """Programs each listed by start (or end) time, one after the other: the
    runs where those times never go back, when their cuts are all cheap."""
    for times in (columns.starts, columns.ends):
        cuts = [*(np.flatnonzero(np.diff(times) < 0) + 1).tolist(), n]
        runs = spans(cuts)
        if 2 <= len(runs) <= MAX_RUNS and max(hi - lo for lo, hi in runs) <= MAX_RUN and \
                all(_cheap(columns, runs[i], runs[i + 1]) for i in range(len(runs) - 1)):
            return cuts
    return None


def _cheap(columns: _Columns, left: tuple[int, int], right: tuple[int, int]) -> bool:
    """Whether the cut between two adjacent runs adds at most CUT_SHARE of the
    lower one's bound to the bound of both."""
    below, above = columns.bound(*left), columns.bound(*right)
    return below + above - columns.bound(left[0], right[1]) <= CUT_SHARE * min(below, above)


def spans(cuts: list[int]) -> list[tuple[int, int]]:
    """The runs [lo, hi) that run ends `cuts` delimit."""
    return list(zip([0, *cuts[:-1]], cuts, strict=True))


@dataclass(frozen=True)
class _Columns:
    """The buffers in input order, their times as indices into the distinct times."""

    starts: np.ndarray  # int64[n]
    ends: np.ndarray  # int64[n], exclusive
    sizes: np.ndarray  # int64[n]
    n_times: int

    def profile(self, lo: int, hi: int) -> np.ndarray:
        """The live bytes over time of buffers [lo, hi)."""
        delta = np.zeros(self.n_times + 1, dtype=np.int64)
        np.add.at(delta, self.starts[lo:hi], self.sizes[lo:hi])
        np.add.at(delta, self.ends[lo:hi], -self.sizes[lo:hi])
        return np.cumsum(delta[:-1])

    def bound(self, lo: int, hi: int) -> int:
        return int(self.profile(lo, hi).max(initial=0))

    def kin(self, first: int, last: int, lo: int, hi: int) -> np.ndarray:
        """For each buffer of [first, last): how many more of its start and end
        times the buffers of [lo, first) have than those of [last, hi)."""
        def shared(others: slice) -> np.ndarray:
            times = np.concatenate([self.starts[others], self.ends[others]])
            counts = np.bincount(times, minlength=self.n_times + 1)
            return counts[self.starts[first:last]] + counts[self.ends[first:last]]
        return shared(slice(lo, first)) - shared(slice(last, hi))

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Each buffer of [lo, hi) as its own live bytes over time, one row each."""
        delta = np.zeros((hi - lo, self.n_times + 1), dtype=np.int64)
        rows = np.arange(hi - lo)
        np.add.at(delta, (rows, self.starts[lo:hi]), self.sizes[lo:hi])
        np.add.at(delta, (rows, self.ends[lo:hi]), -self.sizes[lo:hi])
        return np.cumsum(delta[:, :-1], axis=1)


def _dp(core: dict[int, np.ndarray], points: int, shortest: int, longest: int
        ) -> tuple[np.ndarray, np.ndarray]:
    """For each number of runs k, the least sum of the bounds of the cores of k
    runs covering all grid points; and back[k, p], where the last of k runs
    covering points [0, p) starts in the best such runs (-1: no such runs)."""
    # Runs hold disjoint buffers, so a real cost is at most the sum of the sizes
    # (limits.MAX_TOTAL, 2**62); `never` is above any, and is never added to.
    never = np.iinfo(np.int64).max
    most = min(MAX_RUNS, points // shortest)
    cost = np.full((most + 1, points + 1), never, dtype=np.int64)
    back = np.full((most + 1, points + 1), -1, dtype=np.int64)
    cost[0, 0] = 0
    for k in range(1, most + 1):
        for w, bounds in core.items():
            # A run of w steps ending at p (p >= w) starts at p - w.
            before = cost[k - 1, :points + 1 - w]
            reached = before < never
            ended = np.where(reached, before, 0) + bounds
            better = (ended < cost[k, w:]) & reached
            cost[k, w:][better] = ended[better]
            back[k, w:][better] = np.arange(points + 1 - w)[better]
    return cost[:, points], back


def _grid_cuts(back: np.ndarray, k: int, points: int) -> list[int] | None:
    """The run ends, in grid points, of the best k runs; None when there are none."""
    cuts = []
    p = points
    for runs in range(k, 0, -1):
        if back[runs, p] < 0:
            return None
        cuts.append(p)
        p = int(back[runs, p])
    return cuts[::-1]


def _split_one(cuts: list[int], shortest: int, columns: _Columns,
               deadline: float) -> list[int]:
    """`cuts` with one more: the one that adds the least to the sum of bounds
    (of the runs looked at before the deadline; the caller then stops)."""
    best: tuple[int, int] | None = None
    for lo, hi in spans(cuts):
        if time.perf_counter() > deadline:
            break
        if hi - lo < 2 * shortest:
            continue
        rows = np.cumsum(columns.rows(lo, hi), axis=0)
        below = rows[shortest - 1:hi - lo - shortest].max(axis=1)  # [lo, at)
        above = (rows[-1] - rows[shortest - 1:hi - lo - shortest]).max(axis=1)  # [at, hi)
        added = below + above - rows[-1].max()
        at = int(added.argmin())
        if best is None or added[at] < best[0]:
            best = (int(added[at]), lo + shortest + at)
    return cuts if best is None else sorted([*cuts, best[1]])


def _refine(cuts: list[int], step: int, columns: _Columns, deadline: float) -> list[int]:
    """Each cut moved to the position within two grid steps where the two runs
    it separates have the least sum of bounds (the nearer on a tie), left to
    right, until none moves or the deadline passes (the caller then stops)."""
    cuts = list(cuts)
    for _ in range(REFINE_SWEEPS):
        moved = False
        for i in range(len(cuts) - 1):
            if time.perf_counter() > deadline:
                return cuts
            lo, hi = (cuts[i - 1] if i else 0), cuts[i + 1]
            first = max(lo + MIN_RUN_STEPS * step, cuts[i] - 2 * step, hi - MAX_RUN)
            last = min(hi - MIN_RUN_STEPS * step, cuts[i] + 2 * step, lo + MAX_RUN)
            if first > last:
                continue
            # Bounds of [lo, at) and [at, hi) for every `at` in [first, last].
            below = np.cumsum(np.vstack([columns.profile(lo, first), columns.rows(first, last)]),
                              axis=0).max(axis=1)
            above = np.cumsum(np.vstack([columns.profile(last, hi),
                                         columns.rows(first, last)[::-1]]), axis=0).max(axis=1)
            total = below + above[::-1]
            at = np.arange(first, last + 1)[total == total.min()]
            # Where the bounds cannot tell (buffers that miss both runs' busiest
            # moments), each buffer goes with the run whose buffers it shares
            # allocation and free times with: a program's buffers start and end
            # at its own steps.
            kin = columns.kin(at[0], at[-1], lo, hi)
            score = np.concatenate([[0], np.cumsum(kin)])[at - at[0]]
            choice = int(at[np.lexsort((np.abs(at - cuts[i]), -score))[0]])
            moved |= choice != cuts[i]
            cuts[i] = choice
        if not moved:
            break
    return cuts
