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

A problem that splits into time partitions (greedy/parts.py) is solved part by part,
each part racing the search orders on its own: a concatenation costs about the
sum of its parts, where one race over the whole would need one order to suit
every part. The peak is the highest part's, so no part need go below the
highest bound of any part (the floor): each part is asked to fit the floor, the
parts taking turns under growing node budgets (a question left unknown resumes
where it paused, so turns cost no repeated search), and the part holding the
peak is lowered meanwhile with a share of the nodes (`_minimize_groups`).
Parts too large for the exact search's set-up (over EXACT_MAX_BUFFERS) are
improved by greedy/improve.py instead. A part of programs listed one after the other
on one time axis, which does not split, may be packed as layers first, one
program (or a chain of them) above the other (layers.py, `_layered`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..bound import lower_bound
from ..greedy.heuristics import pack_by_parts
from ..greedy.parts import Part, merge, split
from ..problem import Buffer, Problem, Solution
from ..validate import validate
from .decide import DEFAULT_ORDERS, Decider, Verdict
from .start import EXACT_MAX_BUFFERS, GreedyStart, greedy_start, peak_grain, round_up
from .status import SolveStatus, VerdictStatus
from .windows import WindowBound

FIRST_NODE_BUDGET = 1 << 16  # nodes per decision in the first minimising round
# Layers (layers.py) get this many search nodes per layer above the first: a
# layer's optimum may be open. A count of nodes, not seconds, so that the plan
# does not depend on the machine's load (issue 35).
LAYER_NODES = 1 << 23
LAYER_MIN_SECONDS = 1.0  # left before the outer deadline, for the scan for a split
# Large parts (greedy/improve.py) take their turn once the exact parts' rounds have
# spent this many nodes (or are done): a count, where it was a share of the time.
LARGE_TURN_NODES = 1 << 22
# Deciding a capacity the greedy plan misses, the search first runs under a node
# budget of this many nodes per buffer (its first round only: each preorder to 2 n
# nodes, decide.py), then scans for layers; a count of nodes, not seconds, so the
# same input takes the same path at any load.
SHORT_FIT_NODES_PER_BUFFER = 2
# ... and before it, only FIT_BEFORE_SEARCH of the greedy strategies (start.py).
# Under a node budget b, each preorder's search may run to a limit up to b and
# has run to half of it before: a question can spend this many times b.
NODES_PER_BUDGET = 2 * len(DEFAULT_ORDERS)
# Splitting a problem into parts, the part holding the whole's peak is lowered
# with at most this share of the nodes the round's fits took (at least one
# question's budget): measured on the 60,048-buffer concatenation of A-F, 1/4
# reaches the optimum in 3.4 s where sharing equally took 5.4 s, and the
# overlays ended no higher (docs/benchmarks.md).
LOWER_SHARE = 0.25
# When no target settles in a round, time windows (windows.py) are asked the
# bound, each question under this share of the round's node budget, all of them
# together under this share of the nodes the search of the whole spent since
# they were last asked: on D and J, where they prove nothing, they took 37% and
# 47% of a 40 s run's nodes without the second limit.
WINDOW_SHARE = 0.2


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
    window_bound: bool = True,
    start: GreedyStart | None = None,
) -> ExactResult:
    """Decide whether `problem` packs under `capacity` (default: the problem's),
    or with `minimize` find the lowest peak and prove it.

    Without a capacity there is nothing to decide, so the peak is minimised.
    `workers` threads run the search's preorders side by side (default: one per
    core, at most one per preorder); the answer does not depend on it, only the
    node count and the time do. `deadline` (time.perf_counter) overrides
    `time_limit` for a caller whose own work counts against the same limit;
    `on_progress(best peak, proven bound)` hears of every improvement.
    `window_bound` lets time windows raise the proven bound while minimising
    (windows.py); off, only the search of the whole proves bounds. `start`: the greedy
    start already made (`greedy_start` with no `initial`, fitting the same capacity).
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
    # Asked to fit a capacity, the greedy start stops at its first plan that fits
    # (the answer asked for; `minimize` wants the lowest); on one part, at most
    # FIT_BEFORE_SEARCH strategies run before a short search (below).
    fit = None if minimize or capacity is None else capacity
    if start is None:
        start = greedy_start(problem, fit, initial)
    parts, initial, single, paused = start.parts, start.plan, start.single, start.paused
    if on_progress is not None:
        on_progress(initial.peak(problem), lower_bound(problem))
    # Every plan returned is validated: by parts, the merged plan at the end.
    if given or single:
        validate(problem, initial, check_capacity=False)
    if single:
        if minimize or capacity is None:
            initial = _layered(problem, initial, deadline, workers, on_progress)
        run = _Run(problem, started, deadline, initial, workers, on_progress, window_bound)
        if minimize or capacity is None:
            return run.minimize(capacity)
        # Most capacities the first greedy plans miss, a short search settles: the
        # rest of the greedy portfolio (all fourteen cost more than that search on 500
        # buffers, issue 35) and the scan for layers (more than it on 2,000 random
        # intervals) wait until it has not. The search paused there resumes after them.
        if run.best_peak > capacity:
            short = run.short_fit(capacity)
            if paused and short not in (VerdictStatus.FEASIBLE, VerdictStatus.INFEASIBLE):
                # The greedy floor is never cut, whatever the clock says.
                greedy = pack_by_parts(problem, parts, capacity)
                validate(problem, greedy, check_capacity=False)
                run.offer(greedy)
            if short == VerdictStatus.UNKNOWN and run.best_peak > capacity:
                run.offer(_layered(problem, run.best, deadline, workers, on_progress,
                                   capacity))
        return run.decide(capacity)
    return _by_parts(problem, parts, capacity, minimize or capacity is None, started, deadline,
                     initial, workers, on_progress, windows=window_bound)


def _by_parts(
    problem: Problem, parts: list[Part], capacity: int | None, minimize: bool,
    started: float, deadline: float, initial: Solution, workers: int,
    on_progress: Callable[[int, int], None] | None, known: _Known | None = None,
    windows: bool = True, node_cap: int | None = None, layered: bool = True,
) -> ExactResult:
    """Solve each distinct part on its own (identical parts once) and merge.
    `known` carries the parts solved by an earlier call, and learns these.
    `windows`: the parts' minimising may use time windows for bounds. `node_cap`:
    minimising stops (status "timeout") once the parts have spent that many nodes.
    `layered`: parts may be packed as layers (`_layered`); off for the layers' own parts."""
    groups = _groups(parts, initial, known)
    grain = peak_grain(problem)
    if minimize:
        status = _minimize_groups(groups, capacity, grain, started, deadline, workers,
                                  on_progress, windows, node_cap, layered)
    else:
        assert capacity is not None
        status = _fit_groups(groups, capacity, started, deadline, workers, on_progress)
    nodes = sum(group.nodes for group in groups)
    if known is not None:
        known.update((group.key, (parts[group.members[0]].shared(group.plan), group.bound))
                     for group in groups)
    bound = round_up(max((group.bound for group in groups), default=0), grain)
    if status == SolveStatus.INFEASIBLE:
        return ExactResult(None, status, None, bound, time.perf_counter() - started, nodes)
    peak = max((group.peak for group in groups), default=0)
    if status != SolveStatus.TIMEOUT:
        if peak <= bound:
            status = SolveStatus.OPTIMAL
        elif minimize:  # every part reached the floor, yet the whole is not proven
            status = SolveStatus.TIMEOUT
        else:
            status = SolveStatus.FEASIBLE
    plans = [Solution(())] * len(parts)
    for group in groups:
        shared = parts[group.members[0]].shared(group.plan)
        for k in group.members:
            plans[k] = parts[k].own(shared)
    offsets = merge(len(problem.buffers), parts, plans)
    strategy = "exact"
    if offsets == tuple(initial.offsets):
        strategy = initial.strategy
    elif len(parts) == 1:  # one large part: the improvement names what it did
        strategy = plans[0].strategy
    plan = Solution(offsets, strategy, {"status": str(status), "bound": bound, "nodes": nodes})
    validate(problem, plan, check_capacity=False)
    return ExactResult(plan, status, peak, bound, time.perf_counter() - started, nodes)


@dataclass
class _Group:
    """Parts identical up to a shift in time: one solve serves them all."""

    key: tuple  # Part.signature()
    members: list[int]  # indices of the parts
    problem: Problem  # the first member's
    plan: Solution
    peak: int
    bound: int  # proven lower bound on this part's peak
    nodes: int = 0
    run: _Run | None = None  # the exact search's state, once started

    @property
    def large(self) -> bool:
        return len(self.problem.buffers) > EXACT_MAX_BUFFERS

    def start(self, started: float, deadline: float, workers: int,
              on_progress: Callable[[int, int], None], windows: bool = True) -> _Run:
        if self.run is None:
            self.run = _Run(self.problem, started, deadline, self.plan, workers, on_progress,
                            windows)
            self.bound = max(self.bound, self.run.bound)
        return self.run

    def learn(self) -> None:
        """Take the run's plan and bound."""
        assert self.run is not None
        self.plan, self.peak = self.run.best, self.run.best_peak
        self.bound = max(self.bound, self.run.bound)
        self.nodes = self.run.nodes


# Parts solved earlier: signature -> (best plan in canonical order, proven bound).
_Known = dict[tuple, tuple[Solution, int]]


def _groups(parts: list[Part], initial: Solution, known: _Known | None) -> list[_Group]:
    groups: dict[tuple, _Group] = {}
    for k, part in enumerate(parts):
        key = part.signature()
        if key in groups:
            groups[key].members.append(k)
            continue
        plan = part.restrict(initial.offsets)
        group = _Group(key, [k], part.problem, plan, plan.peak(part.problem),
                       lower_bound(part.problem))
        if known is not None and key in known:
            shared, bound = known[key]
            earlier = part.own(shared)
            group.bound = max(group.bound, bound)
            if earlier.peak(part.problem) < group.peak:
                group.plan, group.peak = earlier, earlier.peak(part.problem)
        groups[key] = group
    return list(groups.values())


def _reporter(groups: list[_Group], group: _Group,
              on_progress: Callable[[int, int], None] | None) -> Callable[[int, int], None]:
    """Progress of one group's search as progress of the whole."""
    def report(peak: int, bound: int) -> None:
        if on_progress is not None:
            others = [g.peak for g in groups if g is not group]
            on_progress(max([peak, *others]), max([bound, *(g.bound for g in groups)]))
    return report


def _fit_groups(
    groups: list[_Group], capacity: int, started: float, deadline: float, workers: int,
    on_progress: Callable[[int, int], None] | None,
) -> SolveStatus:
    """Fit every part under the capacity, highest first: every part must, so no
    order wastes work, and an infeasible part ends it early."""
    for group in sorted(groups, key=lambda g: -g.peak):
        if group.peak > capacity:
            group.plan = _layered(group.problem, group.plan, deadline, workers,
                                  _reporter(groups, group, on_progress), capacity,
                                  by_order=not group.large)
            group.peak = group.plan.peak(group.problem)
        if group.peak <= capacity:
            continue
        if time.perf_counter() > deadline:
            return SolveStatus.TIMEOUT
        if group.large:  # the reordering search cannot prove anything
            result = _improve(group, capacity, deadline, _reporter(groups, group, on_progress))
            if result != SolveStatus.FEASIBLE:
                return SolveStatus.TIMEOUT
            continue
        run = group.start(started, deadline, workers, _reporter(groups, group, on_progress))
        result = run.decide(capacity)
        group.learn()
        if result.status in (SolveStatus.INFEASIBLE, SolveStatus.TIMEOUT):
            return result.status
    return SolveStatus.FEASIBLE


def _minimize_groups(
    groups: list[_Group], capacity: int | None, grain: int, started: float, deadline: float,
    workers: int, on_progress: Callable[[int, int], None] | None, windows: bool = True,
    node_cap: int | None = None, layered: bool = True,
) -> SolveStatus:
    """Lower the highest part until the whole is proven optimal or the time is up.

    The whole's peak is its highest part's, so no part need go below the
    floor: the highest bound any part has (a proof in one part raises it for
    all). Rounds under a node budget per question that grows fourfold each
    round: first every part above the floor is asked to fit it (a decision,
    usually cheap; the part with the highest bound first), then the part that
    holds the whole's peak is lowered step by step (below its best plan,
    halfway to the floor) with a share of the nodes the fits took
    (LOWER_SHARE), so the plan held improves even when a fit is out of reach.
    No part is ever asked to prove its own optimum below the floor. Parts too
    large for the exact search are reordered (greedy/improve.py) once the exact
    parts have spent LARGE_TURN_NODES nodes, or are done: a count, so that the plan
    does not depend on the load. With `node_cap`, the rounds stop ("timeout") once
    the exact parts have spent that many nodes.
    """
    budget = FIRST_NODE_BUDGET
    exact = [g for g in groups if not g.large]
    large = [g for g in groups if g.large]

    def floor() -> int:
        return round_up(max(g.bound for g in groups), grain)

    def open_groups(among: list[_Group]) -> list[_Group]:
        return [g for g in among if g.peak > floor()]

    def run(group: _Group) -> _Run:
        return group.start(started, deadline, workers, _reporter(groups, group, on_progress),
                           windows)

    # A layer's parts are not layered again: with LAYER_FROM below MAX_LAYER_PART they
    # could be, each level a new stack of searches.
    for group in groups if layered else ():
        plan = _layered(group.problem, group.plan, deadline, workers,
                        _reporter(groups, group, on_progress), by_order=not group.large)
        group.plan, group.peak = plan, plan.peak(group.problem)
    def searched() -> int:
        return sum(g.nodes for g in exact)

    large_done = False
    while open_groups(exact):
        if time.perf_counter() > deadline:
            return SolveStatus.TIMEOUT
        at_round = searched()
        ask = budget
        if node_cap is not None:  # no question may pass the cap
            if at_round >= node_cap:
                return SolveStatus.TIMEOUT
            ask = min(budget, (node_cap - at_round) // NODES_PER_BUDGET)
        if not large_done and open_groups(large) and at_round >= LARGE_TURN_NODES:
            _improve_all(open_groups(large), floor(), deadline, groups, on_progress)
            large_done = True
            continue
        spent = 0
        for group in sorted(open_groups(exact), key=lambda g: (-g.bound, -g.peak)):
            if group.peak <= floor():
                continue
            before = run(group).nodes
            answer = run(group).fit(ask, floor(), capacity)
            group.learn()
            spent += group.nodes - before
            if answer == VerdictStatus.TIMEOUT:
                return SolveStatus.TIMEOUT
        highest = max(g.peak for g in groups)
        allowance = max(int(spent * LOWER_SHARE), ask)
        if node_cap is not None:
            allowance = min(allowance, node_cap - searched())
        for group in open_groups(exact):
            if group.peak == highest:
                answer = run(group).lower(ask, floor(), capacity, node_cap=allowance)
                group.learn()
                if answer == VerdictStatus.TIMEOUT:
                    return SolveStatus.TIMEOUT
        if node_cap is not None and searched() == at_round:  # the cap left too few nodes
            return SolveStatus.TIMEOUT
        budget *= 4
    if not large_done:
        _improve_all(open_groups(large), floor(), deadline, groups, on_progress)
    return SolveStatus.TIMEOUT if open_groups(groups) else SolveStatus.OPTIMAL


def _layered(
    problem: Problem, plan: Solution, deadline: float, workers: int,
    on_progress: Callable[[int, int], None] | None, capacity: int | None = None,
    by_order: bool = True,
) -> Solution:
    """`plan`, or the problem's layers (layers.py) each minimised on its own and
    stacked, when that is lower. The layers get LAYER_NODES search nodes per layer
    above the first (the deadline stays the outer stop). With
    a `capacity` (deciding), a stack that fits it ends the work there. Without
    `by_order`, only layers by name or by runs (runs.py) are looked for (the
    two-run scan of the input order costs seconds on a part too large for the
    exact search)."""
    from .layers import find_layers, stack_base

    if deadline - time.perf_counter() < LAYER_MIN_SECONDS:  # the scan alone takes that
        return plan
    found = find_layers(problem, plan.peak(problem), by_order, deadline)
    if found is None:
        return plan
    now = time.perf_counter()
    budget = LAYER_NODES * (len(found) - 1)
    runs = [Problem([problem.buffers[i] for i in layer]) for layer in found]
    # Solved as one problem, each run after the one below it in time: the runs
    # often repeat the same programs, and identical parts are solved once.
    chained: list[Buffer] = []
    for run in runs:
        shift = (max(b.end for b in chained) if chained else 0) - min(b.start for b in run.buffers)
        chained.extend(Buffer(b.id, b.start + shift, b.end + shift, b.size, b.alignment)
                       for b in run.buffers)
    both = Problem(chained)
    known: _Known = {}
    parts = split(both)
    # Layers are solved for their plans: a bound on one layer bounds nothing of the
    # stack, so no time goes to time windows (windows.py) here.
    result = _by_parts(both, parts, None, True, now, deadline, pack_by_parts(both, parts),
                       workers, None, known, windows=False, node_cap=budget, layered=False)
    spent = result.nodes
    assert result.solution is not None  # no capacity to miss
    layers: list[Solution] = []
    first = 0
    for run in runs:
        layers.append(Solution(result.solution.offsets[first:first + len(run.buffers)]))
        first += len(run.buffers)

    def stack() -> tuple[int, list[int]]:
        bases, top = [], 0
        for run, layer in zip(runs, layers, strict=True):
            bases.append(stack_base(top, run))
            top = bases[-1] + layer.peak(run)
        return top, bases

    # Solved together, no part went below the highest run's floor; each run goes
    # on to its own, with what the parts learnt, unless the stack fits already.
    for i, run in enumerate(runs):
        if capacity is not None and stack()[0] <= capacity:
            break
        if time.perf_counter() > deadline:
            break
        if spent < budget and layers[i].peak(run) > lower_bound(run):
            parts = split(run)
            again = _by_parts(run, parts, None, True, now, deadline, layers[i], workers, None,
                              known, windows=False, layered=False,
                              node_cap=(budget - spent) // (len(runs) - i))
            assert again.solution is not None
            spent += again.nodes
            layers[i] = again.solution
    peak, bases = stack()
    if peak >= plan.peak(problem):
        return plan
    offsets = [0] * len(problem.buffers)
    for layer, base, solution in zip(found, bases, layers, strict=True):
        for i, offset in zip(layer, solution.offsets, strict=True):
            offsets[i] = base + offset
    stacked = Solution(tuple(offsets), f"{len(found)} layers")
    validate(problem, stacked, check_capacity=False)
    if on_progress is not None:
        on_progress(peak, lower_bound(problem))
    return stacked


def _improve_all(large: list[_Group], target: int, deadline: float, groups: list[_Group],
                 on_progress: Callable[[int, int], None] | None) -> None:
    """Highest part first, each with its own budget of greedy runs (improve.py): the
    whole's peak is its highest part's, so lowering any other first gains nothing."""
    for group in sorted(large, key=lambda g: -g.peak):
        if time.perf_counter() > deadline:
            return
        _improve(group, target, deadline, _reporter(groups, group, on_progress))


def _improve(group: _Group, target: int, deadline: float,
             on_progress: Callable[[int, int], None]) -> SolveStatus:
    """Reorder a large part's greedy runs until it is at most `target`, its budget of
    runs is spent or the deadline passes."""
    from ..greedy.improve import improve

    bound = group.bound
    group.plan = improve(group.problem, group.plan, deadline, target,
                         lambda peak: on_progress(peak, bound))
    group.peak = group.plan.peak(group.problem)
    return SolveStatus.FEASIBLE if group.peak <= target else SolveStatus.TIMEOUT


class _Run:
    """One call of solve_exact: the incumbent plan, the proven bound, the clock."""

    def __init__(
        self, problem: Problem, started: float, deadline: float, initial: Solution,
        workers: int, on_progress: Callable[[int, int], None] | None, windows: bool = True,
    ):
        self.problem = problem
        self.workers = workers
        self.started = started
        self.deadline = deadline
        self.grain = peak_grain(problem)
        self.bound = round_up(lower_bound(problem), self.grain)
        self.nodes = 0
        self.best = initial
        self.on_progress = on_progress
        self._decider: Decider | None = None
        self._bound_tried = False
        self._unknown_at: dict[int, int] = {}  # target -> node budget it was left unknown with
        self._use_windows = windows
        self._windows: WindowBound | None = None  # made when first asked
        self._searched_at_windows = 0  # nodes of the whole's search when they were

    @property
    def best_peak(self) -> int:
        return self.best.peak(self.problem)

    def _ask(self, peak: int, node_budget: int | None = None) -> Verdict:
        peak = peak // self.grain * self.grain  # no canonical plan peaks in between
        if time.perf_counter() > self.deadline:  # the search's set-up would be spent for nothing
            return Verdict(VerdictStatus.TIMEOUT, None, 0)
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

    def short_fit(self, capacity: int) -> VerdictStatus:
        """Ask for `capacity` under SHORT_FIT_NODES_PER_BUFFER nodes per buffer."""
        if self.bound > capacity:
            return VerdictStatus.INFEASIBLE
        budget = SHORT_FIT_NODES_PER_BUFFER * max(len(self.problem.buffers), 1)
        return self._ask(capacity, budget).status

    def offer(self, plan: Solution) -> None:
        """Keep `plan` (valid, as every plan handed in is) if it is lower than the best."""
        if plan.peak(self.problem) < self.best_peak:
            self.best = plan
            if self.on_progress is not None:
                self.on_progress(self.best_peak, self.bound)

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

    def minimize(self, capacity: int | None) -> ExactResult:
        """Lower the peak until proven optimal."""
        # A plan that fits the capacity is what the caller needs first; when the
        # bound equals the capacity, as it often does, that plan is also optimal.
        needs_fit = capacity is not None and self.bound <= capacity < self.best_peak
        if needs_fit and self._ask(capacity).status == VerdictStatus.TIMEOUT:
            return self._result(SolveStatus.TIMEOUT)
        budget = FIRST_NODE_BUDGET
        while (answer := self.lower(budget)) == VerdictStatus.UNKNOWN:
            # When no target is settled within the budget, the budget grows fourfold.
            budget *= 4
        if answer == VerdictStatus.TIMEOUT:
            return self._result(SolveStatus.TIMEOUT)
        return self._result(self._reached())

    def fit(self, budget: int, floor: int, capacity: int | None = None) -> VerdictStatus:
        """Ask once under `budget` nodes for the lowest peak worth having: the
        floor (or this part's bound, if higher), or the capacity if that is higher."""
        # This part's peaks are multiples of its grain: one at most the floor is at
        # most the floor rounded down (rounding up asked for a peak above the floor).
        low = max(self.bound, floor // self.grain * self.grain)
        if capacity is not None and low <= capacity < self.best_peak:
            low = capacity
        if self.best_peak <= low or self._unknown_at.get(low, 0) >= budget:
            return VerdictStatus.UNKNOWN
        answer = self._ask(low, budget)
        if answer.status == VerdictStatus.UNKNOWN:
            self._unknown_at[low] = budget
        return answer.status

    def lower(
        self, budget: int, floor: int = 0, capacity: int | None = None,
        node_cap: int | None = None,
    ) -> VerdictStatus:
        """Ask targets under `budget` nodes each until the peak is proven optimal or
        at most `floor` ("feasible"), no target settles ("unknown"), or time is up.

        With `node_cap`, the floor is left to `fit`, and asking stops once the
        questions have spent that many nodes ("unknown")."""
        started = self.nodes
        while self.best_peak > max(self.bound, floor):
            # Each proof may raise the bound by one grain only: read the clock here too.
            if time.perf_counter() > self.deadline:
                return VerdictStatus.TIMEOUT
            ask_budget = budget
            if node_cap is not None:  # no question may spend more than is left
                ask_budget = min(budget, (node_cap - self.nodes + started) // NODES_PER_BUDGET)
                if ask_budget < 2 * len(self.problem.buffers):  # the first round's limit
                    return VerdictStatus.UNKNOWN
            for target in self._targets(floor, capacity, with_low=node_cap is None):
                if self._unknown_at.get(target, 0) >= ask_budget:
                    continue  # asking again with no more nodes gives the same answer
                answer = self._ask(target, ask_budget)
                if answer.status == VerdictStatus.UNKNOWN:
                    self._unknown_at[target] = ask_budget
                    continue
                if answer.status == VerdictStatus.TIMEOUT:
                    return VerdictStatus.TIMEOUT
                break  # settled: the targets move
            else:
                if not self._bound_by_windows(ask_budget):
                    return VerdictStatus.UNKNOWN
        return VerdictStatus.FEASIBLE

    def _bound_by_windows(self, budget: int) -> bool:
        """Let time windows raise the bound (windows.py); True when they did."""
        if not self._use_windows:
            return False
        if self._windows is None:
            self._windows = WindowBound(self.problem, self.grain, self.workers)
        spent = self._windows.nodes
        searched = self.nodes - spent  # by the search of the whole
        bound = self._windows.raise_bound(
            self.bound, max(int(budget * WINDOW_SHARE), 1), self.deadline,
            node_cap=int((searched - self._searched_at_windows) * WINDOW_SHARE))
        self._searched_at_windows = searched
        self.nodes += self._windows.nodes - spent
        if bound <= self.bound:
            return False
        self.bound = bound
        if self.on_progress is not None:
            self.on_progress(self.best_peak, self.bound)
        return True

    def _targets(self, floor: int, capacity: int | None, with_low: bool = True) -> list[int]:
        """The lowest peak worth asking for (the bound, or the floor another part
        set), then just below the best plan (usually easy, and the plan found
        often lands well below the target), then halfway between them (a proof
        there halves the gap). A capacity in between comes first."""
        low = max(self.bound, floor // self.grain * self.grain)
        below = self.best_peak - self.grain
        middle = (low + below) // 2 // self.grain * self.grain
        if low > self.bound:  # reaching another part's bound is all this part needs
            targets: tuple[int, ...] = (low, below, middle)
        elif not self._bound_tried:  # one cheap try at the bound
            # Only one: each proof there raises the bound by one grain, and with
            # a grain of one byte that would creep for ever (issue 16).
            self._bound_tried = True
            targets = (low, below, middle)
        else:  # descending is what usually pays once the bound resisted
            targets = (below, middle, low)
        if capacity is not None and low <= capacity < self.best_peak:
            targets = (capacity, *targets)
        return list(dict.fromkeys(t for t in targets if t > low or (with_low and t == low)))

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
