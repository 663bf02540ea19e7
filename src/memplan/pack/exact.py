"""The exact offset solver: decide a capacity, or minimise the peak and prove it.

Anytime: it starts from a plan (the best heuristic plan unless given one),
only ever replaces it with a lower valid plan, and when the time limit stops
it, returns the best plan with the bound it has proven. Every choice is made
by node counts, never by the clock, so the same input and options give the
same answer whenever the search finishes within the limit.

Minimising is a sequence of decisions (decide.py) on a target peak:
- the capacity first, when the best plan does not fit it yet (no node budget:
  a plan that fits is what the caller needs; when the bound equals the
  capacity, as it often does, that plan is also optimal);
- then, under a node budget, the bound (tight on most real instances, and a
  plan that reaches it needs no further proof), one grain below the best plan
  (usually easy, and it often lands well below), and the midpoint (a proof
  there halves the gap). After the first budget the bound is asked last.
When no target is settled within the budget, the budget grows fourfold. A
"feasible" answer lowers the best plan, an "infeasible" one raises the
proven bound, until they meet.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

from .bound import lower_bound
from .decide import DEFAULT_ORDERS, Decider, Decision
from .heuristics import pack_heuristic
from .problem import Problem, Solution
from .validate import validate

FIRST_NODE_BUDGET = 1 << 16  # nodes per decision in the first minimising round


@dataclass(frozen=True)
class ExactResult:
    solution: Solution | None  # best valid plan found (None only if infeasible/none found)
    status: str  # "optimal" | "feasible" | "infeasible" | "timeout"
    peak: int | None
    best_bound: int  # proven lower bound on the optimal peak
    seconds: float
    nodes: int  # search nodes explored

    @property
    def gap(self) -> float | None:
        """(peak - bound) / bound: 0.0 once proven optimal."""
        if self.peak is None or self.best_bound <= 0:
            return None
        return (self.peak - self.best_bound) / self.best_bound


def solve_exact(
    problem: Problem,
    *,
    capacity: int | None = None,
    minimize: bool = False,
    time_limit: float | None = None,
    initial: Solution | None = None,
    workers: int | None = None,
) -> ExactResult:
    """Decide whether `problem` packs under `capacity` (default: the problem's),
    or with `minimize` find the lowest peak and prove it.

    Without a capacity there is nothing to decide, so the peak is minimised.
    `workers` threads run the search's preorders side by side (default: one per
    core, at most one per preorder); the answer does not depend on it, only the
    node count and the time do.
    """
    started = time.perf_counter()
    if time_limit is not None and (math.isnan(time_limit) or time_limit < 0):
        raise ValueError(f"time limit must be a non-negative number of seconds, not {time_limit}")
    deadline = math.inf if time_limit is None else started + time_limit
    if capacity is None:
        capacity = problem.capacity
    if capacity is not None and capacity < 0:
        raise ValueError(f"capacity must be non-negative, not {capacity}")
    if workers is None:
        workers = min(len(DEFAULT_ORDERS), os.cpu_count() or 1)
    run = _Run(problem, started, deadline, initial, workers)
    if minimize or capacity is None:
        return run.minimize(capacity)
    return run.decide(capacity)


class _Run:
    """One call of solve_exact: the incumbent plan, the proven bound, the clock."""

    def __init__(
        self, problem: Problem, started: float, deadline: float, initial: Solution | None,
        workers: int,
    ):
        self.problem = problem
        self.workers = workers
        self.started = started
        self.deadline = deadline
        self.grain = peak_grain(problem)
        self.bound = _round_up(lower_bound(problem), self.grain)
        self.nodes = 0
        self.best = self._starting_plan(initial)
        self._decider: Decider | None = None

    def _starting_plan(self, initial: Solution | None) -> Solution:
        if initial is not None:
            validate(self.problem, initial, check_capacity=False)
            return initial
        heuristic = pack_heuristic(self.problem)
        validate(self.problem, heuristic, check_capacity=False)
        return heuristic

    @property
    def best_peak(self) -> int:
        return self.best.peak(self.problem)

    def _ask(self, peak: int, node_budget: int | None = None) -> Decision:
        peak = peak // self.grain * self.grain  # no canonical plan peaks in between
        if self._decider is None:
            self._decider = Decider(self.problem, workers=self.workers)
        answer = self._decider.decide(peak, self.deadline, node_budget)
        self.nodes += answer.nodes
        if answer.status == "feasible":
            assert answer.offsets is not None
            plan = Solution(answer.offsets, strategy="exact")
            validate(self.problem, plan, check_capacity=False)
            if plan.peak(self.problem) > peak:
                raise AssertionError("exact search returned a plan above its target peak")
            if plan.peak(self.problem) < self.best_peak:
                self.best = plan
        elif answer.status == "infeasible":
            self.bound = max(self.bound, peak + self.grain)
        return answer

    def decide(self, capacity: int) -> ExactResult:
        if self.best_peak <= capacity:
            return self._result("optimal" if self.best_peak <= self.bound else "feasible")
        if self.bound > capacity:
            return self._result("infeasible")
        answer = self._ask(capacity)
        if answer.status == "feasible":
            return self._result("optimal" if self.best_peak <= self.bound else "feasible")
        return self._result(answer.status)  # "infeasible" or "timeout"

    def minimize(self, capacity: int | None) -> ExactResult:
        # A plan that fits the capacity is what the caller needs first; when the
        # bound equals the capacity, as it often does, that plan is also optimal.
        needs_fit = capacity is not None and self.bound <= capacity < self.best_peak
        if needs_fit and self._ask(capacity).status == "timeout":
            return self._result("timeout")
        budget = FIRST_NODE_BUDGET
        unknown_at: dict[int, int] = {}  # target -> budget it was left unknown with
        while self.bound < self.best_peak:
            settled = False
            for target in self._targets(budget):
                if unknown_at.get(target) == budget:
                    continue  # asking again with the same budget gives the same answer
                answer = self._ask(target, budget)
                if answer.status == "unknown":
                    unknown_at[target] = budget
                if answer.status == "timeout":
                    return self._result("timeout")
                if answer.status != "unknown":
                    settled = True
                    break
            if not settled:
                budget *= 4
        return self._result("optimal")

    def _targets(self, budget: int) -> list[int]:
        """The bound itself (a plan there needs no proof), then just below the best
        plan (usually easy, and the plan found often lands well below the target),
        then halfway between them (a proof there halves the gap)."""
        below = self.best_peak - self.grain
        middle = (self.bound + below) // 2 // self.grain * self.grain
        if budget == FIRST_NODE_BUDGET:  # one cheap try at the bound
            targets = (self.bound, below, middle)
        else:  # descending is what usually pays once the bound resisted
            targets = (below, middle, self.bound)
        return list(dict.fromkeys(t for t in targets if t >= self.bound))

    def _result(self, status: str) -> ExactResult:
        seconds = time.perf_counter() - self.started
        if status == "infeasible":
            return ExactResult(None, status, None, self.bound, seconds, self.nodes)
        plan = Solution(
            self.best.offsets,
            self.best.strategy,
            {**self.best.notes, "status": status, "bound": self.bound, "nodes": self.nodes},
        )
        return ExactResult(plan, status, self.best_peak, self.bound, seconds, self.nodes)


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


def _round_up(value: int, grain: int) -> int:
    return -(-value // grain) * grain
