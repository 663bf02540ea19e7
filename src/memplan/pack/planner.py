"""The planner's entry point: solve, validate, and say how good the plan is."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from .bound import lower_bound
from .heuristics import pack_by_parts, prepare_greedy
from .problem import Problem, Solution
from .status import SolveStatus
from .validate import validate


@dataclass(frozen=True)
class PackResult:
    problem: Problem
    solution: Solution
    lower_bound: int
    peak: int
    seconds: float
    # Set by plan_exact: the solver's status and the lower bound it proved (at
    # least `lower_bound`).
    status: SolveStatus | None = None
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
    """Pack with the heuristics, each time partition on its own; the plan returned has
    been validated."""
    prepare_greedy(len(problem.buffers))
    started = time.perf_counter()
    solution = pack_by_parts(problem)
    seconds = time.perf_counter() - started
    # A heuristic plan may exceed the capacity; that is reported, not hidden.
    validate(problem, solution, check_capacity=False)
    return PackResult(problem, solution, lower_bound(problem), solution.peak(problem), seconds)


# Share of a time limit kept for checking and reporting the plan after the search.
FINISH_SHARE = 0.05


def plan_exact(
    problem: Problem, *, minimize: bool = False, time_limit: float | None = None,
    on_progress: Callable[[int, int], None] | None = None, started: float | None = None,
    window_bound: bool = True,
) -> PackResult:
    """Pack with the exact solver: fit the capacity, or with `minimize` the lowest peak.

    `time_limit` bounds the whole call from `started` (time.perf_counter; default
    now; the CLI passes its process's start): loading the kernels, the greedy
    start, the set-up, the search and the final check. The greedy start always
    runs whole, so the plan is never worse than `plan(problem)`'s; a limit
    shorter than the greedy start ends right after it. The plan has been
    validated. `window_bound` lets time windows raise the proven bound
    (pack/windows.py). When the capacity is proven out of reach (status "infeasible"),
    the heuristic plan is returned so the caller can still show it.
    """
    from .decide import load_search
    from .exact import solve_exact

    if started is None:
        started = time.perf_counter()
    deadline = math.inf
    if time_limit is not None:
        deadline = started + (1 - FINISH_SHARE) * time_limit
    load_search()
    prepare_greedy(len(problem.buffers))
    solving = time.perf_counter()
    result = solve_exact(problem, minimize=minimize, deadline=deadline, on_progress=on_progress,
                         window_bound=window_bound)
    solution = result.solution  # validated by solve_exact
    if solution is None:  # the greedy runs of its parts are kept: no second packing
        solution = pack_by_parts(problem)
        validate(problem, solution, check_capacity=False)
    seconds = time.perf_counter() - solving
    return PackResult(
        problem, solution, lower_bound(problem), solution.peak(problem), seconds,
        status=result.status, proven_bound=result.best_bound,
    )
