"""Cross sections of a packing problem: the facts the exact search prunes with.

A *section* is the set of buffers live just before some buffer ends. Every
set of buffers live at one moment is contained in a section (take the first
end time after that moment), so checking sections checks every moment, and
there are at most as many sections as distinct end times.

Buffer `i` belongs to the contiguous section range `[section_lo[i], section_hi[i])`.
A *cut* between sections `s` and `s + 1` counts the buffers spanning both;
where it is zero the problem splits into independent *partitions* (the same
idea as google/minimalloc's sweeper, written here with numpy).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ..arrays import problem_arrays
from ..problem import Problem


@dataclass(frozen=True)
class Sweep:
    section_lo: np.ndarray  # int64[n]: first section of each buffer
    section_hi: np.ndarray  # int64[n]: one past its last section
    member_ptr: np.ndarray  # int64[S+1]: CSR rows of buffers per section
    members: np.ndarray  # int64: buffer indices, section by section
    overlap_ptr: np.ndarray  # int64[n+1]: CSR rows of buffers overlapping in time
    overlaps: np.ndarray  # int64: buffer indices, buffer by buffer
    section_bytes: np.ndarray  # int64[S]: total size of each section's buffers
    cuts: np.ndarray  # int64[S-1]: buffers spanning sections s and s+1

    @property
    def n_sections(self) -> int:
        return len(self.section_bytes)

    def buffers_in(self, lo: int, hi: int) -> np.ndarray:
        """Indices of the buffers live in any of sections `[lo, hi)`."""
        return np.flatnonzero((self.section_lo < hi) & (self.section_hi > lo)).astype(np.int64)

    def partitions(self) -> list[tuple[int, int]]:
        """Section ranges `[lo, hi)` that share no buffer: solvable one by one."""
        return partition_bounds(self.cuts, self.n_sections)


def cuts_between(section_lo: np.ndarray, section_hi: np.ndarray, n_sections: int) -> np.ndarray:
    """For each s, the buffers spanning sections s and s + 1 (a buffer spans the
    cuts lo .. hi-2 of its range)."""
    spans = np.zeros(n_sections + 1, dtype=np.int64)
    np.add.at(spans, section_lo, 1)
    np.add.at(spans, section_hi - 1, -1)
    return np.cumsum(spans)[: max(n_sections - 1, 0)]


def partition_bounds(cuts: np.ndarray, n_sections: int) -> list[tuple[int, int]]:
    """The section ranges between zero cuts."""
    bounds = [0, *(int(s) + 1 for s in np.flatnonzero(cuts == 0)), n_sections]
    return [(lo, hi) for lo, hi in pairwise(bounds) if hi > lo]


def sweep(problem: Problem) -> Sweep:
    arrays = problem_arrays(problem)
    starts, ends, sizes = arrays.starts, arrays.ends, arrays.sizes
    section_lo, section_hi = arrays.section_lo, arrays.section_hi
    n_sections = arrays.n_sections

    member_ptr, members = _section_members(section_lo, section_hi, n_sections)
    # Each buffer adds its size from its first section to its last: a difference array.
    change = np.zeros(n_sections + 1, dtype=np.int64)
    np.add.at(change, section_lo, sizes)
    np.add.at(change, section_hi, -sizes)
    section_bytes = np.cumsum(change[:n_sections])
    cuts = cuts_between(section_lo, section_hi, n_sections)
    overlap_ptr, overlaps = _time_overlaps(starts, ends)
    return Sweep(section_lo, section_hi, member_ptr, members, overlap_ptr, overlaps,
                 section_bytes, cuts)


# The set-up is vectorised: in Python loops it cost more than the search on 2,000
# random intervals (0.08 s of 0.1 s; issue 35).


def _section_members(
    section_lo: np.ndarray, section_hi: np.ndarray, n_sections: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each section's buffers in index order, as CSR rows."""
    owner, section = _expand(section_lo, section_hi - section_lo)
    order = np.argsort(section, kind="stable")  # owners ascend within a section
    ptr = np.zeros(n_sections + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(section, minlength=n_sections))
    return ptr, owner[order]


def _time_overlaps(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs live at a common moment (half-open lifetimes), as CSR rows.

    By start time, a buffer meets exactly the ones after it that start before it
    ends: a run of positions up to the first start at or past its end."""
    n = len(starts)
    order = np.argsort(starts, kind="stable")
    last = np.searchsorted(starts[order], ends[order], side="left")
    first = np.arange(1, n + 1, dtype=np.int64)
    earlier, later = _expand(first, np.maximum(last - first, 0))  # positions a < b
    # Row by row, each row ascending: one sort of i * n + j (n * n fits in int64).
    pairs = np.sort(np.concatenate([order[earlier] * n + order[later],
                                    order[later] * n + order[earlier]]))
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(pairs // max(n, 1), minlength=n))
    return ptr, pairs % max(n, 1)


def _expand(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every k and every t < count[k]: (k, first[k] + t), k ascending."""
    owner = np.repeat(np.arange(len(count), dtype=np.int64), count)
    start_of = np.cumsum(count) - count
    value = first[owner] + (np.arange(len(owner), dtype=np.int64) - start_of[owner])
    return owner, value
