"""A tiny exhaustive packer, independent of memplan's solvers, for checking them."""

from __future__ import annotations

from memplan.pack import Problem


def brute_force_peak(problem: Problem) -> int:
    """Smallest peak over every assignment of offsets (tiny problems only).

    Tries every aligned offset below the best peak so far for each buffer in
    turn, rejecting overlaps as it goes.
    """
    buffers = problem.buffers
    # Stacking every loose buffer above the pinned ones, each aligned, always fits:
    # a peak strictly above that bound is never needed.
    pinned_top = max((b.offset + b.size for b in buffers if b.offset is not None), default=0)
    best = pinned_top + sum(b.size + b.alignment for b in buffers) + 1
    offsets: list[int] = []

    def clashes(i: int, off: int) -> bool:
        b = buffers[i]
        return any(
            b.overlaps_in_time(buffers[j])
            and off < offsets[j] + buffers[j].size
            and offsets[j] < off + b.size
            for j in range(i)
        )

    def extend(i: int, top: int) -> None:
        nonlocal best
        if top >= best:
            return
        if i == len(buffers):
            best = top
            return
        b = buffers[i]
        choices = [b.offset] if b.offset is not None else range(0, best - b.size, b.alignment)
        for off in choices:
            if off + b.size < best and not clashes(i, off):
                offsets.append(off)
                extend(i + 1, max(top, off + b.size))
                offsets.pop()

    extend(0, 0)
    return best
