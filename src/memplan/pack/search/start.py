"""The exact search's greedy start, in a module of its own: a start that already fits
the capacity asked for is the answer, and the search's own modules (exact, decide,
windows, races: milliseconds of every run) are then never loaded (issue 35: start-up)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..bound import lower_bound
from ..greedy.heuristics import pack_by_parts
from ..greedy.parts import Part, split
from ..problem import Problem, Solution
from .status import SolveStatus

# The search's set-up (sections, time overlaps) grows with n x live buffers: past
# this size a part is improved by the window search of greedy/improve.py instead.
EXACT_MAX_BUFFERS = 3000
# Fitting one part, only this many of the greedy strategies (FIT_FIRST's first) run
# before a short search (exact.py); the others run after it, when it has not settled
# the capacity.
FIT_BEFORE_SEARCH = 2


@dataclass(frozen=True)
class GreedyStart:
    parts: list[Part]  # the problem's time partitions (greedy/parts.py)
    plan: Solution
    single: bool  # one part, small enough for the exact search
    paused: bool  # fitting that part: only FIT_BEFORE_SEARCH strategies ran

    def settles(self, problem: Problem, capacity: int | None) -> bool:
        """The plan fits `capacity` on one part: what the search would return at once."""
        return self.single and capacity is not None and self.plan.peak(problem) <= capacity


def greedy_start(problem: Problem, fit: int | None,
                 initial: Solution | None = None) -> GreedyStart:
    """`initial`, or the greedy plan by parts, stopping at the first that fits `fit`."""
    parts = split(problem)
    single = len(parts) == 1 and len(problem.buffers) <= EXACT_MAX_BUFFERS
    paused = initial is None and single and fit is not None
    if initial is None:
        initial = pack_by_parts(problem, parts, fit, FIT_BEFORE_SEARCH if paused else None)
    return GreedyStart(parts, initial, single, paused)


def settled_status(problem: Problem, plan: Solution) -> tuple[SolveStatus, int]:
    """A plan's status with no search run, and the bound proven without one."""
    bound = round_up(lower_bound(problem), peak_grain(problem))
    return (SolveStatus.OPTIMAL if plan.peak(problem) <= bound else SolveStatus.FEASIBLE), bound


def peak_grain(problem: Problem) -> int:
    """The step every canonical peak is a multiple of.

    When all sizes, pinned offsets and alignments above 1 are multiples of g,
    so is every offset of a canonical plan (each buffer rests on 0 or on a
    buffer's top, rounded up to its alignment), and every plan can be pushed
    down into a canonical one: the optimal peak is a multiple of g. Targets and
    proven bounds then move in steps of g (1024 on the minimalloc instances).
    """
    grain = 0
    for b in problem.buffers:
        grain = math.gcd(grain, b.size)
        if b.alignment > 1:
            grain = math.gcd(grain, b.alignment)
        if b.offset is not None:
            grain = math.gcd(grain, b.offset)
    return max(grain, 1)


def round_up(value: int, grain: int) -> int:
    return -(-value // grain) * grain
