"""The one entry point of packing: the greedy plan, the exact search when asked, the
best of them and of the plans already in hand (`incumbents`: the runtime's own, a
placement's), groups kept rigid (`rigid.py`), and how good the plan kept is
(`PlanStatus`), labelled once, here.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .bound import lower_bound
from .greedy.heuristics import pack_by_parts, place_in_order, prepare_greedy
from .problem import Problem, Rigid, Solution
from .result import PackResult, PlanStatus
from .search.start import greedy_start, settled_status
from .search.status import SolveStatus
from .validate import validate

# Share of a time limit kept for checking and reporting the plan after the search.
FINISH_SHARE = 0.05


@dataclass(frozen=True)
class PackOptions:
    # Search after the greedy plan: fit the capacity or prove it out of reach; `minimize`
    # (which implies the search) lowers the peak and proves it. Off: the greedy plan alone.
    exact: bool = False
    minimize: bool = False
    # Bounds the whole call from `started` (time.perf_counter; default: the call; the CLI
    # passes its process's start). The greedy plan always completes first.
    time_limit: float | None = None
    started: float | None = None
    # Ends the search once it has spent this many nodes (search/decide.py, NodeLimit): a
    # stop in work, so that the plan does not depend on the machine's load; the time
    # limit, when also given, stays the outer stop.
    node_limit: int | None = None
    # Time windows may raise the proven bound while minimising (search/windows.py).
    window_bound: bool = True
    # Other plans to beat, by name: offsets in the order of the problem's buffers. Given
    # (even empty: how a model's arenas are packed), the best plan is kept (an incumbent
    # only when strictly lower), the search runs only while the best is above the lower
    # bound and minimises the peak, and the capacity is reported, not searched for.
    incumbents: Mapping[str, tuple[int, ...]] | None = None
    # Place the buffers in this order (indices into the problem's), each at its lowest
    # fitting offset, and nothing else: a runtime's own greedy planner, for comparison.
    order: tuple[int, ...] | None = None
    # Groups of buffers that keep their relative offsets (a tensor released in parts, a
    # share group at several offsets): placed by `rigid.py`, the rest packed around them.
    rigid: tuple[Rigid, ...] = ()
    # Candidate bases of the rigid groups, by name, one per group (e.g. a caller's stacking).
    rigid_bases: Mapping[str, tuple[int, ...]] | None = None
    # Hears (best peak, proven bound) of every improvement the search makes.
    on_progress: Callable[[int, int], None] | None = None

    def __post_init__(self) -> None:
        if self.time_limit is not None and (math.isnan(self.time_limit) or self.time_limit < 0):
            raise ValueError(f"time limit must be a non-negative number of seconds, not "
                             f"{self.time_limit}")
        if self.node_limit is not None and self.node_limit < 0:
            raise ValueError(f"node limit must be a non-negative count, not {self.node_limit}")

    @property
    def searches(self) -> bool:
        return self.exact or self.minimize


def pack(problem: Problem, options: PackOptions | None = None) -> PackResult:
    """Pack `problem` as `options` say (default: the greedy plan alone); the plan returned
    has been validated (a plan above the capacity is returned too, and says so: `fits`,
    `status`)."""
    if options is None:
        options = PackOptions()
    if options.order is not None:
        return _in_order(problem, options.order)
    if options.rigid:
        from .rigid import pack_rigid  # imports this module

        return pack_rigid(problem, options)
    if options.incumbents is not None:
        return _keep_best(problem, options)
    if options.searches:
        return _search(problem, options)
    return _greedy(problem)


def _greedy(problem: Problem) -> PackResult:
    """The heuristics, each time partition on its own."""
    prepare_greedy(len(problem.buffers))
    started, cpu = time.perf_counter(), time.process_time()
    solution = pack_by_parts(problem)
    return _unsearched(problem, solution, time.perf_counter() - started,
                       time.process_time() - cpu)


def _in_order(problem: Problem, order: tuple[int, ...]) -> PackResult:
    started = time.perf_counter()
    offsets = place_in_order(problem, order, best_fit=False)
    solution = Solution(tuple(offsets), "order/first-fit")
    return _unsearched(problem, solution, time.perf_counter() - started)


def _unsearched(problem: Problem, solution: Solution, seconds: float,
                cpu_seconds: float | None = None) -> PackResult:
    # A heuristic plan may exceed the capacity; that is reported, not hidden.
    validate(problem, solution, check_capacity=False)
    bound = lower_bound(problem)
    peak = solution.peak(problem)
    if problem.capacity is not None and problem.capacity < bound:
        status = PlanStatus.INFEASIBLE  # the live bytes alone prove it
    else:
        status = PlanStatus.AT_BOUND if peak <= bound else PlanStatus.HEURISTIC
    return PackResult(problem, solution, bound, peak, seconds, status, cpu_seconds=cpu_seconds)


def _search(problem: Problem, options: PackOptions) -> PackResult:
    """The exact search: fit the capacity, or with `minimize` the lowest peak.

    The time limit bounds loading the kernels, the greedy start, the set-up, the search
    and the final check. The greedy start always runs whole, so the plan is never worse
    than `_greedy`'s; a limit shorter than it ends right after it. The search's kernels
    are loaded by its first question (search/decide.py), inside the solve time: a greedy
    start that settles the run, or a deadline spent before any question, needs none.
    Importing the search's Python modules is start-up deferred to here: its time is
    reported apart (`load_seconds`), not in the solve time.
    When the capacity is proven out of reach, the heuristic plan is returned so the
    caller can still show it.
    """
    started = time.perf_counter() if options.started is None else options.started
    deadline = math.inf
    if options.time_limit is not None:
        deadline = started + (1 - FINISH_SHARE) * options.time_limit
    prepare_greedy(len(problem.buffers))
    load_seconds = load_cpu = 0.0
    solving, cpu = time.perf_counter(), time.process_time()
    start = greedy_start(problem, None if options.minimize else problem.capacity)
    if start.settles(problem, problem.capacity) and not options.minimize:
        # The answer asked for is in hand, as solve_exact would return it at once; the
        # search's modules load only when a search runs (issue 35: start-up).
        solution = start.plan
        validate(problem, solution, check_capacity=False)
        if options.on_progress is not None:
            options.on_progress(solution.peak(problem), lower_bound(problem))
        searched, proven = settled_status(problem, solution)
    else:
        loading, cpu_loading = time.perf_counter(), time.process_time()
        from .search.decide import node_limit
        from .search.exact import solve_exact

        load_seconds = time.perf_counter() - loading
        load_cpu = time.process_time() - cpu_loading

        with node_limit(options.node_limit):
            result = solve_exact(problem, minimize=options.minimize, deadline=deadline,
                                 on_progress=options.on_progress,
                                 window_bound=options.window_bound, start=start)
        solution = result.solution  # validated by solve_exact
        searched, proven = result.status, result.best_bound
    if solution is None:  # the greedy runs of its parts are kept: no second packing
        solution = pack_by_parts(problem)
        validate(problem, solution, check_capacity=False)
    seconds = time.perf_counter() - solving - load_seconds
    cpu_seconds = time.process_time() - cpu - load_cpu
    bound = lower_bound(problem)
    peak = solution.peak(problem)
    fits = problem.capacity is None or peak <= problem.capacity
    return PackResult(problem, solution, bound, peak, seconds,
                      _searched(searched, peak, bound, fits), proven, cpu_seconds=cpu_seconds,
                      load_seconds=load_seconds)


def _searched(status: SolveStatus, peak: int, bound: int, fits: bool) -> PlanStatus:
    """The plan's status from what the search established."""
    if status is SolveStatus.INFEASIBLE:
        return PlanStatus.INFEASIBLE
    if peak <= bound:
        return PlanStatus.AT_BOUND
    if status is SolveStatus.OPTIMAL:
        return PlanStatus.OPTIMAL
    if status is SolveStatus.TIMEOUT and not fits:
        return PlanStatus.TIMEOUT
    return PlanStatus.GAP  # a fit found, or the minimising stopped: lower not ruled out


def _keep_best(problem: Problem, options: PackOptions) -> PackResult:
    """The lowest validated plan of memplan's and the incumbents'; the search minimises
    only while that is above the lower bound."""
    searchable = dataclasses.replace(problem, capacity=None)
    best = _greedy(searchable)
    for name, offsets in (options.incumbents or {}).items():
        kept = Solution(tuple(offsets), name)
        validate(searchable, kept, check_capacity=False)
        if kept.peak(searchable) < best.peak:
            best = PackResult(searchable, kept, best.lower_bound, kept.peak(searchable), 0.0,
                              PlanStatus.HEURISTIC, chosen=name)
    if best.peak <= best.lower_bound or not problem.buffers:
        return _on(best, problem, PlanStatus.AT_BOUND)
    if not options.searches:
        return _on(best, problem, PlanStatus.HEURISTIC)
    exact = _search(searchable, dataclasses.replace(options, minimize=True, incumbents=None))
    if exact.peak < best.peak:
        best = exact
    proven = max(best.lower_bound, exact.proven_bound or 0)
    if best.peak <= best.lower_bound:
        status = PlanStatus.AT_BOUND
    elif exact.status is PlanStatus.OPTIMAL and exact.peak <= best.peak:
        status = PlanStatus.OPTIMAL
        proven = best.peak
    else:
        status = PlanStatus.GAP
    return dataclasses.replace(_on(best, problem, status), proven_bound=proven)


def _on(result: PackResult, problem: Problem, status: PlanStatus) -> PackResult:
    """The result on the problem as asked (with its capacity, for reports and plots)."""
    return dataclasses.replace(result, problem=problem, status=status)
