"""Rigid groups: rectangles that keep their offsets relative to one another.

A buffer released in parts (each band of it dead at its own step, the runtime seeing one
tensor at one offset), or a share group whose members sit at different offsets, packs as
several rectangles that move together. The search places single rectangles; a rigid
group is placed here, then pinned, and the search places the rest around it.

Where to pin: each candidate is a first fit over time x address of every rectangle,
whole groups at once, in one of `ORDERS`: a group's base is feasible when each of its
rectangles clears every placed rectangle that overlaps it in time, and the lowest
feasible base (aligned) is taken. The plans already in hand (`incumbents`: a runtime's,
the groups packed whole) give candidates too, as do caller's `bases`. The candidates
are searched lowest first until one reaches the bound, at most `searched` of them; the
bound reported is the unpinned problem's, which every candidate's plan is a plan of.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .bound import lower_bound
from .packer import PackOptions, pack
from .problem import Buffer, Problem, Rigid, Solution
from .result import PackResult, PlanStatus
from .validate import validate


class RigidOrder(enum.Enum):
    """The order a first fit places the units (rigid groups and lone buffers) in."""

    SIZE = "size"  # tallest first (span over address), longer first on ties
    AREA = "area"  # most bytes x steps first
    START = "start"  # earliest first, as TFLM's and ExecuTorch's greedy planners do
    RIGID_FIRST = "rigid-first"  # the rigid groups first (by size), then the rest by size


ORDERS: tuple[RigidOrder, ...] = tuple(RigidOrder)

# Candidate pins searched at most, lowest first: each search may spend the time limit.
SEARCHED = 1


@dataclass(frozen=True)
class _Unit:
    members: tuple[int, ...]
    offsets: tuple[int, ...]
    alignment: int
    rigid: bool


def _units(problem: Problem, groups: Sequence[Rigid]) -> list[_Unit]:
    """The rigid groups, then every other buffer as a unit of its own."""
    taken: set[int] = set()
    units = []
    for g in groups:
        if len(g.members) != len(g.offsets) or not g.members:
            raise ValueError("a rigid group needs one offset per member, and a member")
        if taken & set(g.members) or any(problem.buffers[i].offset is not None
                                         for i in g.members):
            raise ValueError("a buffer is in two rigid groups, or a rigid one is pinned")
        taken.update(g.members)
        units.append(_Unit(g.members, g.offsets, max(1, g.alignment), True))
    units += [_Unit((i,), (0,), b.alignment, False) for i, b in enumerate(problem.buffers)
              if i not in taken]
    return units


def _key(order: RigidOrder, problem: Problem) -> Callable[[_Unit], tuple[int, ...]]:
    def span(u: _Unit) -> int:
        return max(o + problem.buffers[i].size for i, o in zip(u.members, u.offsets,
                                                                strict=True))

    def start(u: _Unit) -> int:
        return min(problem.buffers[i].start for i in u.members)

    def duration(u: _Unit) -> int:
        return max(problem.buffers[i].end for i in u.members) - start(u)

    def area(u: _Unit) -> int:
        return sum(problem.buffers[i].size * (problem.buffers[i].end - problem.buffers[i].start)
                   for i in u.members)

    return {
        RigidOrder.SIZE: lambda u: (-span(u), -duration(u), start(u)),
        RigidOrder.AREA: lambda u: (-area(u), -span(u), start(u)),
        RigidOrder.START: lambda u: (start(u), -span(u)),
        RigidOrder.RIGID_FIRST: lambda u: (not u.rigid, -span(u), -duration(u), start(u)),
    }[order]


def first_fit(problem: Problem, groups: Sequence[Rigid], order: RigidOrder) -> Solution:
    """Every unit placed in `order` at its lowest feasible base (pinned buffers first,
    where pinned)."""
    buffers = problem.buffers
    offsets: list[int | None] = [b.offset for b in buffers]
    placed = [i for i, b in enumerate(buffers) if b.offset is not None]
    for u in sorted((u for u in _units(problem, groups) if not (
            len(u.members) == 1 and buffers[u.members[0]].offset is not None)),
            key=_key(order, problem)):
        _put(buffers, offsets, placed, u, _lowest(_forbidden(buffers, offsets, placed, u),
                                                  u.alignment))
    return Solution(tuple(int(o or 0) for o in offsets), f"rigid/{order.value}/first-fit")


def hung(problem: Problem, groups: Sequence[Rigid], top: int) -> tuple[int, ...]:
    """Bases with each rigid group (tallest first) as high as it fits below `top` beside
    the ones placed before (else as low as it fits): a group released in parts from its
    low end then frees bytes adjoining the ones below it, where the others go."""
    buffers = problem.buffers
    offsets: list[int | None] = [b.offset for b in buffers]
    placed = [i for i, b in enumerate(buffers) if b.offset is not None]
    units = [u for u in _units(problem, groups) if u.rigid]
    bases = [0] * len(units)
    for k in sorted(range(len(units)), key=lambda k: _key(RigidOrder.SIZE, problem)(units[k])):
        u = units[k]
        span = max(o + buffers[i].size for i, o in zip(u.members, u.offsets, strict=True))
        forbidden = _forbidden(buffers, offsets, placed, u)
        base = _highest(forbidden, u.alignment, top - span)
        bases[k] = base if base is not None else _lowest(forbidden, u.alignment)
        _put(buffers, offsets, placed, u, bases[k])
    return tuple(bases)


def _put(buffers: Sequence[Buffer], offsets: list[int | None], placed: list[int],
         unit: _Unit, base: int) -> None:
    for i, o in zip(unit.members, unit.offsets, strict=True):
        offsets[i] = base + o
        placed.append(i)


def _forbidden(buffers: Sequence[Buffer], offsets: list[int | None], placed: list[int],
               unit: _Unit) -> list[tuple[int, int]]:
    """The bases `[lo, hi)` at which a member of `unit` meets a placed buffer in time and
    address, sorted."""
    found = []
    for i, o in zip(unit.members, unit.offsets, strict=True):
        p = buffers[i]
        if not p.size:
            continue
        for j in placed:
            q, at = buffers[j], offsets[j]
            if q.size and at is not None and q.start < p.end and p.start < q.end:
                # base + o < at + q.size and at < base + o + p.size
                found.append((at - o - p.size + 1, at + q.size - o))
    found.sort()
    return found


def _lowest(forbidden: list[tuple[int, int]], alignment: int) -> int:
    base = 0
    for lo, hi in forbidden:
        if lo > base:
            break
        if hi > base:
            base = -(-hi // alignment) * alignment
    return base


def _highest(forbidden: list[tuple[int, int]], alignment: int, limit: int) -> int | None:
    """The highest base at most `limit` outside `forbidden`, a multiple of `alignment`."""
    base = limit // alignment * alignment if limit >= 0 else -1
    while base >= 0 and any(lo <= base < hi for lo, hi in forbidden):
        base = (min(lo for lo, hi in forbidden if lo <= base < hi) - 1) // alignment * alignment
    return base if base >= 0 else None


def bases_of(solution: Solution, groups: Sequence[Rigid]) -> tuple[int, ...] | None:
    """Each group's base in a plan, or None when a group is not kept together in it."""
    found = []
    for g in groups:
        base = solution.offsets[g.members[0]] - g.offsets[0]
        if base < 0 or base % g.alignment or any(
                solution.offsets[i] - o != base for i, o in zip(g.members, g.offsets,
                                                                 strict=True)):
            return None
        found.append(base)
    return tuple(found)


def pinned(problem: Problem, groups: Sequence[Rigid], bases: Sequence[int]) -> Problem:
    """The problem with each rigid group's members fixed at `base + offset`."""
    fixed = list(problem.buffers)
    for g, base in zip(groups, bases, strict=True):
        for i, o in zip(g.members, g.offsets, strict=True):
            fixed[i] = dataclasses.replace(fixed[i], offset=base + o)
    return Problem(tuple(fixed), problem.capacity)


def pack_rigid(problem: Problem, options: PackOptions, *,
               orders: Sequence[RigidOrder] = ORDERS, hang: bool = True,
               searched: int = SEARCHED) -> PackResult:
    """The lowest plan of `problem` keeping `options.rigid` rigid (`pack` comes here when
    given rigid groups). Candidate pins: a first fit per order, the groups hung below the
    bound (`hung`), each of `options.incumbents`' own, `options.rigid_bases`. Each
    candidate's problem (its groups pinned) is packed by the
    heuristics, the plans in hand that keep those pins its incumbents; when
    `options.searches`, the `searched` lowest are searched, lowest first, until one
    reaches the bound. The result is on `problem` as given, its bound the unpinned
    problem's; its status never says optimal (a search proves that only of its pins)."""
    groups, bases = options.rigid, options.rigid_bases
    options = dataclasses.replace(options, rigid=(), rigid_bases=None)
    bound = lower_bound(problem)
    full: dict[str, Solution] = {}
    for order in orders:
        plan = first_fit(problem, groups, order)
        full[plan.strategy] = plan
    for name, offsets in (options.incumbents or {}).items():
        full[name] = Solution(tuple(offsets), name)
    for plan in full.values():
        validate(problem, plan, check_capacity=False)
    candidates = {bases_of(plan, groups) for plan in full.values()} - {None}
    candidates |= {tuple(b) for b in (bases or {}).values()}
    if hang:
        candidates.add(hung(problem, groups, bound))
    heuristic = dataclasses.replace(options, exact=False, minimize=False, time_limit=None)
    ranked: list[tuple[int, tuple[int, ...], PackResult]] = []
    for pins in sorted(candidates):
        fixed = pinned(problem, groups, pins)
        consistent = {name: plan.offsets for name, plan in full.items()
                      if bases_of(plan, groups) == pins}
        result = pack(fixed, dataclasses.replace(heuristic, incumbents=consistent))
        ranked.append((result.peak, pins, result))
    ranked.sort(key=lambda r: (r[0], r[1]))
    best = ranked[0][2]
    seconds = sum(r[2].seconds for r in ranked)
    if options.searches and best.peak > bound:
        for _, pins, start in ranked[:max(1, searched)]:
            result = pack(pinned(problem, groups, pins), dataclasses.replace(
                options, incumbents={start.chosen: start.solution.offsets}))
            seconds += result.seconds
            if result.peak < best.peak:
                best = result
            if best.peak <= bound:
                break
    validate(problem, best.solution, check_capacity=False)
    status = (PlanStatus.AT_BOUND if best.peak <= bound else
              PlanStatus.GAP if options.searches else PlanStatus.HEURISTIC)
    return dataclasses.replace(best, problem=problem, lower_bound=bound, status=status,
                               proven_bound=None, seconds=seconds)
