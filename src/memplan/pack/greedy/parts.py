"""Independent parts of a problem: time partitions no buffer spans across.

Buffers of different partitions never meet in time, so each partition packs
on its own and a plan's peak is the highest of its partitions' peaks. Models
repeat layers, so partitions often repeat too: `signature` names a part up to
a shift in time, and identical parts share one solve.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..arrays import problem_arrays
from ..problem import Buffer, Problem, Solution


@dataclass(frozen=True)
class Part:
    indices: np.ndarray  # int64: the buffers of the whole problem in this part, ascending
    problem: Problem  # those buffers alone, same capacity

    def restrict(self, offsets: tuple[int, ...] | list[int]) -> Solution:
        return Solution(tuple(int(offsets[i]) for i in self.indices.tolist()))

    @cached_property
    def _canonical(self) -> list[int]:
        """The part's buffers by (start, end, size, alignment, pin): repeated parts
        are recognised, and share plans, whatever order the input lists them in
        (shuffled, overlay-20016's eight equal parts were eight distinct ones)."""
        shift = min(b.start for b in self.problem.buffers)
        keys = [(b.start - shift, b.end - shift, b.size, b.alignment,
                 -1 if b.offset is None else b.offset) for b in self.problem.buffers]
        return sorted(range(len(keys)), key=keys.__getitem__)

    def signature(self) -> tuple:
        """Equal for parts that differ only by a shift in time, buffer ids and order."""
        shift = min(b.start for b in self.problem.buffers)
        buffers = self.problem.buffers
        return tuple((buffers[i].start - shift, buffers[i].end - shift, buffers[i].size,
                      buffers[i].alignment, buffers[i].offset) for i in self._canonical)

    def shared(self, solution: Solution) -> Solution:
        """This part's plan in canonical order: the form parts with one signature share."""
        return Solution(tuple(solution.offsets[i] for i in self._canonical), solution.strategy,
                        solution.notes)

    def own(self, shared: Solution) -> Solution:
        """A plan in canonical order (`shared`) in this part's own order."""
        offsets = [0] * len(shared.offsets)
        for i, offset in zip(self._canonical, shared.offsets, strict=True):
            offsets[i] = offset
        return Solution(tuple(offsets), shared.strategy, shared.notes)


def split(problem: Problem) -> list[Part]:
    """The problem's time partitions, in time order; one part when it does not split."""
    arrays = problem_arrays(problem)
    if len(problem.buffers) == 0 or not arrays.regular:
        return [Part(np.arange(len(problem.buffers), dtype=np.int64), problem)]
    bounds = arrays.partitions
    if len(bounds) <= 1:
        return [Part(np.arange(len(problem.buffers), dtype=np.int64), problem)]
    # Each buffer lies in exactly one partition: the one holding its first section.
    starts = np.array([lo for lo, _ in bounds], dtype=np.int64)
    which = np.searchsorted(starts, arrays.section_lo, side="right") - 1
    order = np.argsort(which, kind="stable")
    cuts = np.searchsorted(which[order], np.arange(1, len(bounds)))
    parts = []
    for indices in np.split(order, cuts):
        if len(indices):
            buffers: list[Buffer] = [problem.buffers[i] for i in indices.tolist()]
            parts.append(Part(indices, Problem(buffers, problem.capacity)))
    return parts


def merge(n: int, parts: list[Part], solutions: list[Solution]) -> tuple[int, ...]:
    offsets = [0] * n
    for part, solution in zip(parts, solutions, strict=True):
        for i, off in zip(part.indices.tolist(), solution.offsets, strict=True):
            offsets[i] = off
    return tuple(offsets)
