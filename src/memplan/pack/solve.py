"""The one "keep the best plan, say how good it is" of memplan: heuristics, then the
exact solver when they are above the lower bound, against every plan already in hand
(the runtime's own, a placement's packing); the proof is labelled once, here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .planner import PackResult, plan, plan_exact
from .problem import Problem, Solution
from .status import SolveStatus
from .validate import validate


class Proof(StrEnum):
    """How far a plan's peak is known to be from the best possible."""

    AT_BOUND = "at_bound"  # the peak equals the most bytes live at once: nothing is lower
    OPTIMAL = "optimal"  # above that bound, and the exact solver proved nothing lower fits
    GAP = "gap"  # the exact solver ran out of time: a lower peak is not ruled out
    HEURISTIC = "heuristic"  # the exact solver was not asked (no time limit)


@dataclass(frozen=True)
class Solved:
    result: PackResult  # the plan kept (validated)
    proof: Proof
    chosen: str  # "memplan", or the name of the incumbent kept
    proven_bound: int  # no plan is lower (the live-bytes bound, or what the solver proved)


def solve(problem: Problem, *, incumbents: Mapping[str, tuple[int, ...]] | None = None,
          time_limit: float | None = 10.0) -> Solved:
    """The lowest validated plan of memplan's and the `incumbents` (offsets in the order
    of `problem.buffers`); an incumbent wins only when strictly lower."""
    searchable = dataclasses.replace(problem, capacity=None)  # the exact solver minimises
    best = plan(searchable)
    chosen = "memplan"
    for name, offsets in (incumbents or {}).items():
        kept = Solution(tuple(offsets), name)
        validate(searchable, kept, check_capacity=False)
        if kept.peak(searchable) < best.peak:
            best = PackResult(searchable, kept, best.lower_bound, kept.peak(searchable), 0.0)
            chosen = name
    if best.peak <= best.lower_bound or not problem.buffers:
        return Solved(_on(best, problem), Proof.AT_BOUND, chosen, best.lower_bound)
    if not time_limit:
        return Solved(_on(best, problem), Proof.HEURISTIC, chosen, best.lower_bound)
    exact = plan_exact(searchable, minimize=True, time_limit=time_limit)
    if exact.peak < best.peak:
        best, chosen = exact, "memplan"
    proven = max(best.lower_bound, exact.proven_bound or 0)
    if best.peak <= best.lower_bound:
        proof = Proof.AT_BOUND
    elif exact.status is SolveStatus.OPTIMAL and exact.peak <= best.peak:
        proof = Proof.OPTIMAL
        proven = best.peak
    else:
        proof = Proof.GAP
    result = dataclasses.replace(best, status=exact.status, proven_bound=proven)
    return Solved(_on(result, problem), proof, chosen, proven)


def _on(result: PackResult, problem: Problem) -> PackResult:
    """The result on the problem as asked (with its capacity, for reports and plots)."""
    return dataclasses.replace(result, problem=problem)
