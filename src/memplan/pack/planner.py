"""The planner's entry point: solve, validate, and say how good the plan is."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .bound import lower_bound
from .heuristics import pack_heuristic
from .problem import Problem, Solution
from .validate import validate


@dataclass(frozen=True)
class PackResult:
    problem: Problem
    solution: Solution
    lower_bound: int
    peak: int
    seconds: float
    # Set by plan_exact: the solver's status ("optimal" | "feasible" | "infeasible" |
    # "timeout") and the lower bound it proved (at least `lower_bound`).
    status: str | None = None
    proven_bound: int | None = None

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


def plan(problem: Problem) -> PackResult:
    """Pack with the heuristics; the plan returned has been validated."""
    started = time.perf_counter()
    solution = pack_heuristic(problem)
    seconds = time.perf_counter() - started
    # A heuristic plan may exceed the capacity; that is reported, not hidden.
    validate(problem, solution, check_capacity=False)
    return PackResult(problem, solution, lower_bound(problem), solution.peak(problem), seconds)


def plan_exact(
    problem: Problem, *, minimize: bool = False, time_limit: float | None = None
) -> PackResult:
    """Pack with the exact solver: fit the capacity, or with `minimize` the lowest peak.

    The plan has been validated. When the capacity is proven out of reach (status
    "infeasible"), the heuristic plan is returned so the caller can still show it.
    """
    from .exact import solve_exact  # imports numba: only when the exact solver is wanted

    started = time.perf_counter()
    result = solve_exact(problem, minimize=minimize, time_limit=time_limit)
    solution = result.solution
    if solution is None:  # infeasible: nothing fits, show the best plan that exists
        solution = pack_heuristic(problem)
    validate(problem, solution, check_capacity=False)
    seconds = time.perf_counter() - started
    return PackResult(
        problem, solution, lower_bound(problem), solution.peak(problem), seconds,
        status=result.status, proven_bound=result.best_bound,
    )
