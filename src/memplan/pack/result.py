"""A packing's answer: the plan, its peak, and how good it is (`PlanStatus`: its values are
the words users see, in `memplan pack` and `memplan plan` alike)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .problem import Problem, Solution


class PlanStatus(StrEnum):
    AT_BOUND = "at_bound"  # the peak equals the most bytes live at once: nothing is lower
    OPTIMAL = "optimal"  # above that bound, and the exact search proved nothing lower fits
    GAP = "gap"  # the exact search stopped (time, or it settles for a fit): lower not ruled out
    HEURISTIC = "heuristic"  # the exact search was not asked
    INFEASIBLE = "infeasible"  # proven: no plan fits the capacity
    TIMEOUT = "timeout"  # the time limit ended the search before any plan fit the capacity


@dataclass(frozen=True)
class PackResult:
    problem: Problem
    solution: Solution  # validated
    lower_bound: int  # the most bytes live at once
    peak: int
    seconds: float
    status: PlanStatus
    # The bound the exact search proved (at least `lower_bound`); None when it did not run.
    proven_bound: int | None = None
    chosen: str = "memplan"  # whose plan was kept: memplan's, or an incumbent's name
    # The process's CPU over the same span as `seconds` (every thread's): on a shared machine
    # the wall clock grows with the load, this much less. None where nothing was solved.
    cpu_seconds: float | None = None
    # Importing the search's modules, at its first use in the process: start-up deferred,
    # not solving, so it is kept out of `seconds` and `cpu_seconds` and shown beside them.
    load_seconds: float = 0.0

    @property
    def offsets(self) -> dict[str, int]:
        """Each buffer's offset, by its id."""
        return {b.id: off for b, off in zip(self.problem.buffers, self.solution.offsets,
                                            strict=True)}

    @property
    def fits(self) -> bool | None:
        """None when the problem has no capacity to fit."""
        if self.problem.capacity is None:
            return None
        return self.peak <= self.problem.capacity

    @property
    def ratio(self) -> float:
        return self.peak / self.lower_bound if self.lower_bound else 1.0

    @property
    def strategy(self) -> str:
        return self.solution.strategy
