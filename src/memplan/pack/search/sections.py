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
    section_bytes = np.zeros(n_sections, dtype=np.int64)
    for lo, hi, size in zip(section_lo, section_hi, sizes, strict=True):
        section_bytes[lo:hi] += size
    cuts = cuts_between(section_lo, section_hi, n_sections)
    overlap_ptr, overlaps = _time_overlaps(starts, ends)
    return Sweep(section_lo, section_hi, member_ptr, members, overlap_ptr, overlaps,
                 section_bytes, cuts)


def _section_members(
    section_lo: np.ndarray, section_hi: np.ndarray, n_sections: int
) -> tuple[np.ndarray, np.ndarray]:
    rows: list[list[int]] = [[] for _ in range(n_sections)]
    for i, (lo, hi) in enumerate(zip(section_lo, section_hi, strict=True)):
        for s in range(lo, hi):
            rows[s].append(i)
    return _csr(rows)


def _time_overlaps(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs live at a common moment (half-open lifetimes), as CSR rows."""
    n = len(starts)
    rows: list[list[int]] = [[] for _ in range(n)]
    order = np.argsort(starts, kind="stable")
    live: list[int] = []
    for i in order.tolist():
        live = [j for j in live if ends[j] > starts[i]]
        for j in live:
            rows[i].append(j)
            rows[j].append(i)
        live.append(i)
    return _csr([sorted(r) for r in rows])


def _csr(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(r) for r in rows])
    flat = np.array([x for r in rows for x in r], dtype=np.int64)
    return ptr, flat
