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

A problem that splits into time partitions (parts.py) is solved part by part,
each part racing the search orders on its own: a concatenation costs about the
sum of its parts, where one race over the whole would need one order to suit
every part. The peak is the highest part's; once a part is proven to need some
peak, the others need only reach it. Parts too large for the exact search's
set-up (over EXACT_MAX_BUFFERS) are improved by improve.py instead.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from .bound import lower_bound
from .decide import DEFAULT_ORDERS, Decider, Verdict
from .heuristics import pack_heuristic
from .parts import Part, merge, split
from .problem import Problem, Solution
from .status import SolveStatus, VerdictStatus
from .validate import validate

FIRST_NODE_BUDGET = 1 << 16  # nodes per decision in the first minimising round
# The search's set-up (sections, time overlaps) grows with n x live buffers: past
# this size a part is improved by the window search of improve.py instead.
EXACT_MAX_BUFFERS = 3000


@dataclass(frozen=True)
class ExactResult:
    solution: Solution | None  # best valid plan found (None only if infeasible/none found)
    status: SolveStatus
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
    deadline: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ExactResult:
    """Decide whether `problem` packs under `capacity` (default: the problem's),
    or with `minimize` find the lowest peak and prove it.

    Without a capacity there is nothing to decide, so the peak is minimised.
    `workers` threads run the search's preorders side by side (default: one per
    core, at most one per preorder); the answer does not depend on it, only the
    node count and the time do. `deadline` (time.perf_counter) overrides
    `time_limit` for a caller whose own work counts against the same limit;
    `on_progress(best peak, proven bound)` hears of every improvement.
    """
    started = time.perf_counter()
    if time_limit is not None and (math.isnan(time_limit) or time_limit < 0):
        raise ValueError(f"time limit must be a non-negative number of seconds, not {time_limit}")
    if deadline is None:
        deadline = math.inf if time_limit is None else started + time_limit
    if capacity is None:
        capacity = problem.capacity
    if capacity is not None and capacity < 0:
        raise ValueError(f"capacity must be non-negative, not {capacity}")
    if workers is None:
        workers = min(len(DEFAULT_ORDERS), os.cpu_count() or 1)
    given = initial is not None
    parts = split(problem)
    if initial is None:
        initial = _greedy(problem, parts, deadline)
    if on_progress is not None:
        on_progress(initial.peak(problem), lower_bound(problem))
    # Every plan returned is validated: by parts, the merged plan at the end.
    single = len(parts) == 1 and len(problem.buffers) <= EXACT_MAX_BUFFERS
    if given or single:
        validate(problem, initial, check_capacity=False)
    if single:
        run = _Run(problem, started, deadline, initial, workers, on_progress)
        if minimize or capacity is None:
            return run.minimize(capacity)
        return run.decide(capacity)
    return _by_parts(problem, parts, capacity, minimize or capacity is None, started, deadline,
                     initial, workers, on_progress)


def _greedy(problem: Problem, parts: list[Part], deadline: float) -> Solution:
    """The greedy start: the best strategy of each part (no worse than the best
    single strategy for all, since parts do not interact), identical parts once."""
    if len(parts) == 1:
        return pack_heuristic(problem, deadline)
    done: dict[tuple, Solution] = {}
    plans = []
    for part in parts:
        key = part.signature()
        if key not in done:
            done[key] = pack_heuristic(part.problem, deadline)
        plans.append(done[key])
    names = {plan.strategy for plan in plans}
    strategy = names.pop() if len(names) == 1 else "best per partition"
    return Solution(merge(len(problem.buffers), parts, plans), strategy)


def _by_parts(
    problem: Problem, parts: list[Part], capacity: int | None, minimize: bool,
    started: float, deadline: float, initial: Solution, workers: int,
    on_progress: Callable[[int, int], None] | None,
) -> ExactResult:
    """Solve each part on its own, the highest first; identical parts once."""
    plans = [part.restrict(initial.offsets) for part in parts]
    peaks = [plan.peak(part.problem) for part, plan in zip(parts, plans, strict=True)]
    bounds = [lower_bound(part.problem) for part in parts]
    grain = peak_grain(problem)
    nodes = 0
    done: dict[tuple, tuple[Solution, int]] = {}  # signature -> (plan, proven bound)
    status = SolveStatus.OPTIMAL
    for k in sorted(range(len(parts)), key=lambda k: (-peaks[k], k)):
        # No plan of the whole peaks below the highest part's bound: a part
        # need not go lower. Deciding the capacity, a part need only fit it.
        floor = max(bounds) if minimize else capacity
        if floor is not None and peaks[k] <= floor:
            continue
        key = parts[k].signature()
        if key in done:
            plans[k], bounds[k] = Solution(done[key][0].offsets), done[key][1]
            peaks[k] = plans[k].peak(parts[k].problem)
            continue
        if time.perf_counter() > deadline:
            status = SolveStatus.TIMEOUT
            break

        def part_progress(peak: int, k: int = k) -> None:
            if on_progress is not None:
                others = [p for j, p in enumerate(peaks) if j != k]
                on_progress(max([peak, *others]), max(bounds))

        result = _solve_part(parts[k].problem, capacity, minimize, floor, started, deadline,
                             plans[k], workers, part_progress)
        nodes += result.nodes
        bounds[k] = max(bounds[k], result.best_bound)
        if result.solution is not None:
            plans[k], peaks[k] = result.solution, result.solution.peak(parts[k].problem)
        if result.status == SolveStatus.INFEASIBLE:
            seconds = time.perf_counter() - started
            return ExactResult(None, SolveStatus.INFEASIBLE, None, _round_up(max(bounds), grain),
                               seconds, nodes)
        done[key] = (plans[k], bounds[k])
        if on_progress is not None:
            on_progress(max(peaks), max(bounds))
        if result.status == SolveStatus.TIMEOUT:
            status = SolveStatus.TIMEOUT
            break
    peak, bound = max(peaks, default=0), _round_up(max(bounds, default=0), grain)
    if status != SolveStatus.TIMEOUT:
        if peak <= bound:
            status = SolveStatus.OPTIMAL
        elif minimize:  # every part reached the floor, yet the whole is not proven
            status = SolveStatus.TIMEOUT
        else:
            status = SolveStatus.FEASIBLE
    offsets = merge(len(problem.buffers), parts, plans)
    strategy = "exact"
    if offsets == tuple(initial.offsets):
        strategy = initial.strategy
    elif len(parts) == 1:  # one large part: the improvement names what it did
        strategy = plans[0].strategy
    plan = Solution(offsets, strategy, {"status": str(status), "bound": bound, "nodes": nodes})
    validate(problem, plan, check_capacity=False)
    return ExactResult(plan, status, peak, bound, time.perf_counter() - started, nodes)


def _solve_part(
    problem: Problem, capacity: int | None, minimize: bool, floor: int | None, started: float,
    deadline: float, initial: Solution, workers: int, on_progress: Callable[[int], None],
) -> ExactResult:
    if len(problem.buffers) > EXACT_MAX_BUFFERS:
        from .improve import improve

        target = floor if floor is not None else lower_bound(problem)
        plan = improve(problem, initial, deadline, target, on_progress)
        peak = plan.peak(problem)
        bound = lower_bound(problem)
        status = SolveStatus.OPTIMAL if peak <= bound else (
            SolveStatus.FEASIBLE if peak <= target else SolveStatus.TIMEOUT)
        return ExactResult(plan, status, peak, bound, time.perf_counter() - started, 0)
    run = _Run(problem, started, deadline, initial, workers,
               lambda peak, _bound: on_progress(peak))
    if minimize:
        # No plan of the whole peaks below `floor`: asking straight whether this
        # part fits it (the fit decision, no node budget) is cheaper than
        # minimising it, and when it does not, the part's bound rises above the
        # floor and minimising goes on.
        fit = floor if capacity is None or floor is None else min(capacity, floor)
        return run.minimize(fit, floor)
    assert capacity is not None
    return run.decide(capacity)


class _Run:
    """One call of solve_exact: the incumbent plan, the proven bound, the clock."""

    def __init__(
        self, problem: Problem, started: float, deadline: float, initial: Solution,
        workers: int, on_progress: Callable[[int, int], None] | None,
    ):
        self.problem = problem
        self.workers = workers
        self.started = started
        self.deadline = deadline
        self.grain = peak_grain(problem)
        self.bound = _round_up(lower_bound(problem), self.grain)
        self.nodes = 0
        self.best = initial
        self.on_progress = on_progress
        self._decider: Decider | None = None
        self._bound_tried = False

    @property
    def best_peak(self) -> int:
        return self.best.peak(self.problem)

    def _ask(self, peak: int, node_budget: int | None = None) -> Verdict:
        peak = peak // self.grain * self.grain  # no canonical plan peaks in between
        if self._decider is None:
            self._decider = Decider(self.problem, workers=self.workers)
        answer = self._decider.decide(peak, self.deadline, node_budget)
        self.nodes += answer.nodes
        if answer.status == VerdictStatus.FEASIBLE:
            assert answer.offsets is not None
            plan = Solution(answer.offsets, strategy="exact")
            validate(self.problem, plan, check_capacity=False)
            if plan.peak(self.problem) > peak:
                raise AssertionError("exact search returned a plan above its target peak")
            if plan.peak(self.problem) < self.best_peak:
                self.best = plan
        elif answer.status == VerdictStatus.INFEASIBLE:
            self.bound = max(self.bound, peak + self.grain)
        if self.on_progress is not None and answer.status in (VerdictStatus.FEASIBLE,
                                                              VerdictStatus.INFEASIBLE):
            self.on_progress(self.best_peak, self.bound)
        return answer

    def _reached(self) -> SolveStatus:
        return SolveStatus.OPTIMAL if self.best_peak <= self.bound else SolveStatus.FEASIBLE

    def decide(self, capacity: int) -> ExactResult:
        if self.best_peak <= capacity:
            return self._result(self._reached())
        if self.bound > capacity:
            return self._result(SolveStatus.INFEASIBLE)
        answer = self._ask(capacity)
        if answer.status == VerdictStatus.FEASIBLE:
            return self._result(self._reached())
        if answer.status == VerdictStatus.INFEASIBLE:
            return self._result(SolveStatus.INFEASIBLE)
        return self._result(SolveStatus.TIMEOUT)

    def minimize(self, capacity: int | None, floor: int | None = None) -> ExactResult:
        """Lower the peak until proven optimal, or (with `floor`) until it is at most `floor`."""
        # A plan that fits the capacity is what the caller needs first; when the
        # bound equals the capacity, as it often does, that plan is also optimal.
        needs_fit = capacity is not None and self.bound <= capacity < self.best_peak
        if needs_fit and self._ask(capacity).status == VerdictStatus.TIMEOUT:
            return self._result(SolveStatus.TIMEOUT)
        budget = FIRST_NODE_BUDGET
        unknown_at: dict[int, int] = {}  # target -> budget it was left unknown with
        while self.bound < self.best_peak and (floor is None or self.best_peak > floor):
            # Each proof may raise the bound by one grain only: read the clock here too.
            if time.perf_counter() > self.deadline:
                return self._result(SolveStatus.TIMEOUT)
            settled = False
            for target in self._targets():
                if unknown_at.get(target) == budget:
                    continue  # asking again with the same budget gives the same answer
                answer = self._ask(target, budget)
                if answer.status == VerdictStatus.UNKNOWN:
                    unknown_at[target] = budget
                if answer.status == VerdictStatus.TIMEOUT:
                    return self._result(SolveStatus.TIMEOUT)
                if answer.status != VerdictStatus.UNKNOWN:
                    settled = True
                    break
            if not settled:
                budget *= 4
        return self._result(self._reached())

    def _targets(self) -> list[int]:
        """The bound itself (a plan there needs no proof), then just below the best
        plan (usually easy, and the plan found often lands well below the target),
        then halfway between them (a proof there halves the gap)."""
        below = self.best_peak - self.grain
        middle = (self.bound + below) // 2 // self.grain * self.grain
        if not self._bound_tried:  # one cheap try at the bound
            # Only one: each proof there raises the bound by one grain, and with
            # a grain of one byte that would creep for ever (issue 16).
            self._bound_tried = True
            targets = (self.bound, below, middle)
        else:  # descending is what usually pays once the bound resisted
            targets = (below, middle, self.bound)
        return list(dict.fromkeys(t for t in targets if t >= self.bound))

    def _result(self, status: SolveStatus) -> ExactResult:
        seconds = time.perf_counter() - self.started
        if status == SolveStatus.INFEASIBLE:
            return ExactResult(None, status, None, self.bound, seconds, self.nodes)
        plan = Solution(
            self.best.offsets,
            self.best.strategy,
            {**self.best.notes, "status": str(status), "bound": self.bound, "nodes": self.nodes},
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
