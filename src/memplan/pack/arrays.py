"""A problem as numpy columns, built once and shared by the packers, bound and validator.

Every large-instance path (greedy core, lower bound, validator, partitions)
needs the same columns and the same time sections; building them costs a pass
over the buffers in Python, so the last problems' columns are kept.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .problem import Problem


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values: `np.unique`, whose first call loads numpy.ma (10 ms of
    a 0.15 s `memplan pack`) to ask whether the array is masked."""
    ordered = np.sort(values)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


@dataclass(frozen=True)
class ProblemArrays:
    starts: np.ndarray  # int64[n]
    ends: np.ndarray  # int64[n], exclusive
    sizes: np.ndarray  # int64[n]
    aligns: np.ndarray  # int64[n]
    fixed: np.ndarray  # int64[n]: pinned offset, or -1

    @cached_property
    def regular(self) -> bool:
        """Every buffer has a positive size and a non-empty lifetime (as CSV input must)."""
        return bool(np.all(self.sizes > 0) and np.all(self.starts < self.ends))

    @cached_property
    def end_times(self) -> np.ndarray:
        return distinct(self.ends)

    @property
    def n_sections(self) -> int:
        return len(self.end_times)

    @cached_property
    def section_lo(self) -> np.ndarray:
        """First section of each buffer: section k holds start < end_times[k] <= end."""
        return np.searchsorted(self.end_times, self.starts, side="right").astype(np.int64)

    @cached_property
    def section_hi(self) -> np.ndarray:
        return np.searchsorted(self.end_times, self.ends, side="right").astype(np.int64)

    @cached_property
    def profile(self) -> tuple[np.ndarray, np.ndarray]:
        """(times, live bytes from that time on) at every allocation or free time.

        Frees sort before allocations at equal times because lifetimes are
        half-open: a buffer ending at t and one starting at t never coexist.
        """
        times = np.concatenate([self.starts, self.ends])
        deltas = np.concatenate([self.sizes, -self.sizes])
        order = np.lexsort((deltas, times))
        times, live = times[order], np.cumsum(deltas[order])
        last = np.ones(len(times), dtype=bool)
        last[:-1] = times[1:] != times[:-1]
        return times[last], live[last]

    @cached_property
    def partitions(self) -> list[tuple[int, int]]:
        """Section ranges [lo, hi) that no buffer spans across: independent sub-problems
        (the same as `sections.sweep(problem).partitions()`, without its pairwise work)."""
        from .search.sections import cuts_between, partition_bounds

        cuts = cuts_between(self.section_lo, self.section_hi, self.n_sections)
        return partition_bounds(cuts, self.n_sections)


# The columns of the last few problems, by identity: a problem split into parts
# goes back and forth between the whole and its parts, and parts may be packed on
# threads side by side. Each entry keeps its problem alive, so its id stays unique.
KEPT = 64
_kept: dict[int, tuple[Problem, ProblemArrays]] = {}
_kept_lock = threading.Lock()


def problem_arrays(problem: Problem) -> ProblemArrays:
    kept = _kept.get(id(problem))
    if kept is not None and kept[0] is problem:
        return kept[1]
    bufs = problem.buffers
    n = len(bufs)
    arrays = ProblemArrays(
        np.fromiter((b.start for b in bufs), dtype=np.int64, count=n),
        np.fromiter((b.end for b in bufs), dtype=np.int64, count=n),
        np.fromiter((b.size for b in bufs), dtype=np.int64, count=n),
        np.fromiter((b.alignment for b in bufs), dtype=np.int64, count=n),
        np.fromiter((-1 if b.offset is None else b.offset for b in bufs), dtype=np.int64,
                    count=n),
    )
    with _kept_lock:
        _kept[id(problem)] = (problem, arrays)
        while len(_kept) > KEPT:
            del _kept[next(iter(_kept))]  # the oldest
    return arrays
