"""Lower bound on the peak of any packing: the most bytes live at one time."""

from __future__ import annotations

from .arrays import problem_arrays
from .problem import Problem


def live_bytes_profile(problem: Problem) -> list[tuple[int, int]]:
    """Return `(time, live bytes from that time on)` at every time the total changes.

    Frees sort before allocations at equal times because lifetimes are
    half-open: a buffer ending at t and one starting at t never coexist.
    """
    times, live = problem_arrays(problem).profile
    return list(zip(times.tolist(), live.tolist(), strict=True))


def lower_bound(problem: Problem) -> int:
    """No packing peaks below the live-bytes maximum, nor below a pinned buffer's top."""
    arrays = problem_arrays(problem)
    live_peak = int(arrays.profile[1].max(initial=0))
    pinned = arrays.fixed >= 0
    pinned_top = int((arrays.fixed[pinned] + arrays.sizes[pinned]).max(initial=0))
    return max(live_peak, pinned_top)
