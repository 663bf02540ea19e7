"""Lower bound on the peak of any packing: the most bytes live at one time."""

from __future__ import annotations

from .problem import Problem


def live_bytes_profile(problem: Problem) -> list[tuple[int, int]]:
    """Return `(time, live bytes from that time on)` at every time the total changes.

    Frees sort before allocations at equal times because lifetimes are
    half-open: a buffer ending at t and one starting at t never coexist.
    """
    events: list[tuple[int, int]] = []
    for b in problem.buffers:
        events.append((b.start, b.size))
        events.append((b.end, -b.size))
    events.sort(key=lambda e: (e[0], e[1]))
    profile: list[tuple[int, int]] = []
    live = 0
    for time, delta in events:
        live += delta
        if profile and profile[-1][0] == time:
            profile[-1] = (time, live)
        else:
            profile.append((time, live))
    return profile


def lower_bound(problem: Problem) -> int:
    """No packing peaks below the live-bytes maximum, nor below a pinned buffer's top."""
    live_peak = max((live for _, live in live_bytes_profile(problem)), default=0)
    pinned_top = max(
        (b.offset + b.size for b in problem.buffers if b.offset is not None), default=0
    )
    return max(live_peak, pinned_top)
