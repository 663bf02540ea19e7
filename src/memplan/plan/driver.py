"""The one driver of whole-model planning, for every runtime's front end
(`runtimes/<name>/front_end.py`).

read -> place across the target's spaces -> pack each space (`pack.pack`: memplan's plan,
the runtime's and the placement's, the best kept and its proof labelled once) -> write in
the runtime's form -> read back what was written and check it on its own -> optionally
run the original and the written model on the runtime, in a child process, and compare.
A front end that plans inside its runtime's compiler (ExecuTorch) gets the same
`plan_arena` as its hook.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..buffers import (
    Arena,
    BufferRequest,
    Key,
    group_offsets,
    merged,
    pieces,
    share_groups,
)
from ..check.offline_plan import offline_plan_problems
from ..errors import BudgetError, InputError
from ..pack import (
    Buffer,
    PackOptions,
    PackResult,
    PlanStatus,
    Problem,
    Rigid,
    Solution,
    lower_bound,
    pack,
    validate,
)
from ..place.model import Placement
from ..targets import Target
from . import entry_for, load
from .contract import (
    FrontEnd,
    ModelView,
    ReadOptions,
    RunCheck,
    Step,
    keeps_own,
    no_step,
    takes_dim_bounds,
)
from .floor import Floor, floor_note, floors
from .rewrites import RewriteKind, Rewritten, implementation


class PlanCheckError(Exception):
    """The plan read back from the written model is unsound (a memplan bug)."""


@dataclass(frozen=True)
class Spill:
    """A buffer a faster space did not take, with each such space's reason."""

    buffer: BufferRequest
    space: str
    reasons: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ArenaPlan:
    """One space (arena) as planned."""

    name: str
    buffers: tuple[BufferRequest, ...]  # every buffer in it, sharers included
    offsets: Mapping[Key, int]  # per buffer, from the arena's base (reserved bytes included)
    size: int  # reserved + packed peak + padding: what the runtime allocates
    lower_bound: int  # reserved + most bytes live at once + padding
    proof: PlanStatus
    chosen: str  # whose plan was kept: "memplan", the runtime's planner, "placement"
    packing: PackResult  # one buffer per share group, offsets above the reserved bytes
    runtime: int | None = None  # the runtime's own planner's size for this arena
    capacity: int | None = None
    reserved: int = 0
    seconds: float = 0.0
    spills: tuple[Spill, ...] = ()
    assignment: str | None = None  # with pools: whose split over the pools was kept


@dataclass(frozen=True)
class PoolSplit:
    """For a runtime with one arena whose arena does not fit the target's first pool:
    where each buffer would go with an allocator of one region per pool (report only)."""

    placement: Placement
    groups: tuple[tuple[BufferRequest, ...], ...]  # in the order of placement.decisions


@dataclass(frozen=True)
class ModelPlan:
    view: ModelView
    front_end: str  # registry name
    runtime: str  # "TFLM's interpreter"
    arenas: tuple[ArenaPlan, ...]
    target: Target | None = None
    written: bytes | None = None  # the model in the runtime's form, read back and checked
    split: PoolSplit | None = None
    notes: tuple[str, ...] = ()
    floors: tuple[Floor, ...] = ()  # per arena planned as one space, when the graph is known
    rewrites: tuple[Rewritten, ...] = ()  # --rewrite: each asked for, kept or not
    original_lower_bound: int | None = None  # with --rewrite: the input's, as given
    # Set when `written` is the runtime's own output, not memplan's (`contract.keeps_own`):
    # what the report says of it.
    own: str | None = None

    @property
    def floor(self) -> int | None:
        """The floor of every arena together (None: not known for every arena)."""
        if not self.floors or len(self.floors) != len(self.arenas):
            return None
        return sum(f.bytes for f in self.floors)

    @property
    def total(self) -> int:
        return sum(a.size for a in self.arenas)

    @property
    def lower_bound(self) -> int:
        return sum(a.lower_bound for a in self.arenas)

    @property
    def runtime_total(self) -> int | None:
        sizes = [a.runtime for a in self.arenas]
        return None if not sizes or None in sizes else sum(sizes)

    def offsets(self) -> dict[str, dict[Key, int]]:
        return {a.name: dict(a.offsets) for a in self.arenas}


# --- planning ---------------------------------------------------------------------------

def plan_model(path: str, *, runtime: str | None = None,
               options: ReadOptions | None = None) -> tuple[FrontEnd, ModelPlan]:
    """Read, place, pack, write (when `options.write`), read back and check."""
    options = options or ReadOptions()
    entry = entry_for(path, runtime)
    fe = load(entry, path)
    if options.dim_bounds and not takes_dim_bounds(fe):
        name, value = next(iter(options.dim_bounds.items()))
        raise InputError(path, f"--dim {name}=..{value}: the {entry.name} runtime is planned "
                         "at one size per dimension (give NAME=N)")
    view = fe.read(path, options)
    target = options.target
    rewrites: tuple[Rewritten, ...] = ()
    original_bound = None
    if options.rewrites is not None and options.rewrites.kinds:
        view, rewrites, original_bound = apply_rewrites(fe, view, options)
    collected: list[ArenaPlan] = []
    own = None
    ties = keeps_own(fe)

    def planner(arena: Arena) -> list[ArenaPlan]:
        plans = plan_arena(arena, target=target, splits=fe.splits,
                           time_limit=options.time_limit, runtime_ties=ties)
        collected.extend(plans)
        return plans

    if fe.plans_in_hook:
        view, written = fe.lower(view, planner)
        # The runtime plans each graph in turn, the top one last: keep each arena's last.
        arenas = tuple({a.name: a for a in collected}.values())
    else:
        arenas = tuple(p for arena in view.arenas for p in planner(arena))
        written = None
        if options.write:
            found = own_output(fe, view, arenas)
            if found is not None:
                written, own = found
            else:
                written = fe.write(view, {a.name: a.offsets for a in arenas})
    if written is not None:
        check_written(fe, view, arenas, written)
    split = None
    if not fe.splits:
        split = pool_split(view, target, sum(a.size for a in arenas))
    notes = view.notes + tuple(n for a in arenas if (n := peak_note(a, view)))
    found = model_floors(view, arenas)
    bounds = {a.name: a.lower_bound for a in arenas}
    reordered = any(r.kind is RewriteKind.REORDER for r in rewrites)
    notes += tuple(n for f in found
                   if (n := floor_note(f, bounds[f.arena], reordered=reordered)))
    if hasattr(fe, "notes"):  # notes that depend on the plan (optional)
        notes += fe.notes(view, {a.name: a.size for a in arenas}, target)
    return fe, ModelPlan(view, fe.name, fe.runtime, arenas, target, written, split, notes,
                         found, rewrites, original_bound, own)


def own_output(fe: FrontEnd, view: ModelView, arenas: Sequence[ArenaPlan]
               ) -> tuple[bytes, str] | None:
    """The runtime's own output and what to say of it, when its front end keeps it
    (`contract.keeps_own`) and the runtime's plan was kept in every arena: no larger than
    memplan's there (a tie goes to the runtime's), so writing memplan's gains nothing."""
    planners = {a.name: a.runtime.planner for a in view.arenas if a.runtime is not None}
    if not keeps_own(fe) or not arenas or any(a.chosen != planners.get(a.name)
                                              for a in arenas):
        return None
    return fe.write_own(view, all(a.size <= a.lower_bound for a in arenas))


def view_bound(fe: FrontEnd, view: ModelView, target: Target | None) -> int:
    """The lower bound of every arena of the view (placed as the plan will be; the
    heuristics only, since only the bound is wanted). A runtime that plans in its own
    hook knows its arenas only once it lowers: the view is lowered for them."""
    if fe.plans_in_hook and not view.arenas:
        collected: list[ArenaPlan] = []

        def planner(arena: Arena) -> list[ArenaPlan]:
            plans = plan_arena(arena, target=target, splits=fe.splits, time_limit=None)
            collected.extend(plans)
            return plans

        fe.lower(view, planner)
        return sum(a.lower_bound for a in {a.name: a for a in collected}.values())
    return sum(p.lower_bound for arena in view.arenas
               for p in plan_arena(arena, target=target, splits=fe.splits, time_limit=None))


def apply_rewrites(fe: FrontEnd, view: ModelView, options: ReadOptions
                   ) -> tuple[ModelView, tuple[Rewritten, ...], int]:
    """Each rewrite asked for, in turn, on what the ones before left; one is kept only when
    the lower bound drops. The view planned, what each did, and the input's bound."""
    asked = options.rewrites
    original = bound = view_bound(fe, view, options.target)
    done = []
    for kind in asked.kinds:
        options.step(f"rewriting: {kind.value}")
        found = implementation(kind, fe.name)(fe, view, asked)
        if isinstance(found, str):
            done.append(Rewritten(kind, False, bound, None, reason=found))
            continue
        after = view_bound(fe, found.view, options.target)
        kept = after < bound
        done.append(Rewritten(kind, kept, bound, after, found.what,
                              None if kept else f"the lower bound does not drop ({after:,} B)",
                              found.macs_before, found.macs_after))
        if kept:
            view, bound = found.view, after
    return view, tuple(done), original


def model_floors(view: ModelView, arenas: Sequence[ArenaPlan]) -> tuple[Floor, ...]:
    """The floor of each arena planned as one space (an arena split over pools has none:
    its floor would depend on the split)."""
    names = [a.name for a in arenas]
    over = {a.name: a.lower_bound - a.packing.lower_bound for a in arenas
            if names.count(a.name) == 1}
    return floors(view, over)


# An arena's bound is "set by a few tensors" when one tensor live at the peak holds at
# least this share of it; below NOTED_BOUND bytes nobody asks why.
DOMINANT_SHARE = 0.25
NOTED_BOUND = 1 << 20


def peak_tensors(arena: ArenaPlan) -> tuple[int, list[BufferRequest]]:
    """The first moment the most bytes are live in the arena, and the buffers (one per
    share group) live then, largest first: what sets the lower bound."""
    groups = [merged(g) for g in share_groups(arena.buffers)]
    times = sorted({b.start for b in groups})
    best, when = -1, 0
    for t in times:
        live = sum(b.packed_size for b in groups if b.start <= t < b.end)
        if live > best:
            best, when = live, t
    live = [b for b in groups if b.start <= when < b.end and b.packed_size]
    return when, sorted(live, key=lambda b: (-b.packed_size, b.start))


def peak_note(arena: ArenaPlan, view: ModelView, count: int = 3) -> str | None:
    """Names the tensors that set an arena's bound when a few of them do."""
    if arena.lower_bound < NOTED_BOUND:
        return None
    when, live = peak_tensors(arena)
    total = sum(b.packed_size for b in live)
    if not live or live[0].packed_size < DOMINANT_SHARE * total:
        return None
    shown = []
    for b in live[:count]:
        shape = view.details.get(b.key, {}).get("shape")
        shown.append(f"{b.name}{' ' + 'x'.join(map(str, shape)) if shape else ''} "
                     f"{b.packed_size:,} B")
    return (f"{arena.name}: the bound is set by the tensors live at step {when} "
            f"({total:,} B), largest first with the op that makes them: "
            + "; ".join(shown) + (f"; and {len(live) - count} more" if len(live) > count
                                  else ""))


def plan_arena(arena: Arena, *, target: Target | None = None, splits: bool = False,
               time_limit: float | None = 10.0, runtime_ties: bool = False) -> list[ArenaPlan]:
    """One arena's buffers: placed across the target's pools when the runtime can split an
    arena (`splits`), each space packed and the best plan kept; with `runtime_ties`, the
    runtime's plan of a space is kept when no larger than memplan's (`contract.keeps_own`;
    not over a split across pools, whose objective is not one size)."""
    groups = share_groups(arena.buffers)
    for group in groups:
        if any(b.size is None for b in group):
            raise InputError(arena.name, f"buffer {group[0].name} has no proven size bound "
                             f"({group[0].unbounded or 'unknown'})")
    pools = target.pools if target is not None else ()
    if splits and pools and not all(b.pinned is not None and target.pool(b.pinned) is None
                                    for b in arena.buffers):
        return _split_arena(arena, groups, target, time_limit)
    if splits or not pools:  # an arena of its own (pinned outside the pools), or no target
        return [_pack_space(arena, arena.name, groups, arena.alignment, None, None, (),
                            time_limit, runtime_ties)]
    # A runtime with one arena on a target: the arena goes in the first pool.
    return [_pack_space(arena, arena.name, groups, max(arena.alignment, pools[0].alignment),
                        pools[0].capacity, None, (), time_limit, runtime_ties)]


def _split_arena(arena: Arena, groups: list[list[BufferRequest]], target: Target,
                 time_limit: float | None) -> list[ArenaPlan]:
    """Place every share group in one of the target's pools (`place.policy`: pins first,
    then smallest first into the fastest pool whose packed peak still fits), then pack
    each pool used, the placement's packing as an incumbent. When the runtime split the
    groups over the pools itself (ExecuTorch's `banked_greedy`), its split repacked is
    kept instead unless the placement's is no worse on every pool but the fastest and
    lexicographically lower, slowest pool first."""
    from ..place.policy import place

    alignment = math.lcm(arena.alignment, *(p.alignment for p in target.pools))
    pools = tuple(dataclasses.replace(p, capacity=max(0, p.capacity - arena.reserved.get(
        p.name, 0))) for p in target.pools)
    pools_only = dataclasses.replace(target, stack=None, heap=None, pools=pools)
    requests = [dataclasses.replace(merged(g), alignment=alignment) for g in groups]
    placement = place(requests, pools_only)
    order = [p.name for p in target.pools]
    theirs = _runtime_split(arena, groups, order)
    # The runtime's own split is the split to beat: tensors a faster pool can still take
    # are moved up, largest first, then each pool is repacked (the runtime's offsets the
    # incumbent, so no pool it did not grow grows).
    kept = None
    if theirs is not None:
        spaces, placed = _promoted(arena, groups, theirs, target, alignment)
        label = arena.runtime.planner + (", improved" if spaces != theirs else "")
        kept = _pack_split(arena, groups, spaces, [() for _ in groups], target, alignment,
                           time_limit, tuple(placed), label)
    unplaced = [(g, d) for g, d in zip(groups, placement.decisions, strict=True) if not d.placed]
    if unplaced:
        if kept is not None:
            return kept
        group, decision = unplaced[0]
        reasons = "; ".join(f"{s}: {why}" for s, why in decision.refusals
                            if target.pool(s) is not None)
        raise BudgetError(f"no pool can hold {group[0].name} ({merged(group).size} B): "
                          f"{reasons}")
    spaces = [d.space for d in placement.decisions]
    refusals = [tuple((s, why) for s, why in d.refusals if s in order)
                for d in placement.decisions]
    mine = _pack_split(arena, groups, spaces, refusals, target, alignment, time_limit,
                       tuple(d.offset for d in placement.decisions), "placement")
    if kept is None:
        return mine
    # memplan's placement is kept only when it leaves no more tensor bytes than the
    # runtime's split (improved) in any slower pool, and is lower by the lexicographic
    # objective (`_pool_key`).
    return mine if _pool_key(mine, order) <= _pool_key(kept, order) and all(
        held(mine, n) <= held(kept, n) for n in order[1:]) else kept


def held(plans: Sequence[ArenaPlan], name: str) -> int:
    """The bytes of the tensors a pool holds (each written and read there): what a
    slower pool costs in traffic, whatever its arena's size."""
    plan = next((p for p in plans if p.name == name), None)
    return 0 if plan is None else sum(b.packed_size for b in plan.buffers
                                      if b.shares_with is None)


def _size(plans: Sequence[ArenaPlan], name: str) -> int:
    return next((p.size for p in plans if p.name == name), 0)


def _pool_key(plans: list[ArenaPlan], order: list[str]) -> tuple[int, ...]:
    """The objective of a split, lexicographic: the tensor bytes held per pool, slowest
    first (the fastest pool filled first), then the arenas' sizes, slowest first."""
    return (*(held(plans, n) for n in reversed(order)),
            *(_size(plans, n) for n in reversed(order)))


def _promoted(arena: Arena, groups: list[list[BufferRequest]], spaces: list[str],
              target: Target, alignment: int) -> tuple[list[str], list[int]]:
    """`spaces` with every unpinned group a faster pool can still take moved there
    (largest first, into the fastest that takes it), and an offset per group from its
    pool's base: the runtime's, or a packing (heuristics) of the pool that took one."""
    runtime = arena.runtime
    spaces = list(spaces)
    bases = {p.name: -(-arena.reserved.get(p.name, 0) // alignment) * alignment
             for p in target.pools}
    offsets = [runtime.offsets[g[0].key] - group_offsets(g)[g[0].key] - bases[spaces[i]]
               for i, g in enumerate(groups)]
    order = [p.name for p in target.pools]
    for i in sorted(range(len(groups)), key=lambda i: -merged(groups[i]).packed_size):
        if groups[i][0].pinned is not None or merged(groups[i]).packed_size == 0:
            continue
        for name in order[:order.index(spaces[i])]:
            members = [j for j, s in enumerate(spaces) if s == name] + [i]
            problem = Problem(tuple(
                Buffer(groups[j][0].name, *merged(groups[j]).lifetime,
                       merged(groups[j]).packed_size, max(alignment, merged(groups[j]).alignment))
                for j in members))
            top = max((offsets[j] + merged(groups[j]).packed_size for j in members[:-1]),
                      default=0)
            top = -(-top // problem.buffers[-1].alignment) * problem.buffers[-1].alignment
            current = (*(offsets[j] for j in members[:-1]), top)
            packed = pack(problem, PackOptions(incumbents={"current": current}))
            room = target.pool(name).capacity - bases[name] - arena.padding
            if packed.peak <= room:
                spaces[i] = name
                for j, offset in zip(members, packed.solution.offsets, strict=True):
                    offsets[j] = offset
                break
    return spaces, offsets


def _runtime_split(arena: Arena, groups: list[list[BufferRequest]], order: list[str]
                   ) -> list[str] | None:
    """The pool the runtime's plan put each share group in (None when it has no split of
    these groups: it refused, or split a group, or moved a pinned one)."""
    runtime = arena.runtime
    if runtime is None or not runtime.spaces:
        return None
    spaces = []
    for group in groups:
        found = {runtime.spaces.get(b.key) for b in group}
        if len(found) != 1 or not _block_held(runtime, group):
            return None
        space = found.pop()
        if space not in order or group[0].pinned not in (None, space):
            return None
        spaces.append(space)
    return spaces


def _pack_split(arena: Arena, groups: list[list[BufferRequest]], spaces: list[str],
                refusals: list[tuple[tuple[str, str], ...]], target: Target, alignment: int,
                time_limit: float | None, placed: tuple[int, ...] | None,
                label: str) -> list[ArenaPlan]:
    """Pack each pool of one split of the groups over the pools."""
    plans = []
    order = [p.name for p in target.pools]
    for name in order:
        members = [i for i, space in enumerate(spaces) if space == name]
        if not members:
            continue
        faster = order[:order.index(name)]
        # An unpinned group a faster pool refused (the placement says why; in the
        # runtime's split it is the runtime's choice).
        spills = tuple(Spill(groups[i][0], name, refusals[i] or tuple(
            (f, f"{label} put it in {name}") for f in faster))
            for i in members if groups[i][0].pinned is None and faster)
        incumbent = None if placed is None else tuple(placed[i] for i in members)
        plan = _pack_space(arena, name, [groups[i] for i in members], alignment,
                           target.pool(name).capacity, incumbent, spills, time_limit)
        plans.append(dataclasses.replace(plan, assignment=label))
    return plans


def _pack_space(arena: Arena, name: str, groups: list[list[BufferRequest]], alignment: int,
                capacity: int | None, placed: tuple[int, ...] | None,
                spills: tuple[Spill, ...], time_limit: float | None = 10.0,
                runtime_ties: bool = False) -> ArenaPlan:
    started = time.perf_counter()
    reserved = arena.reserved.get(name, 0)
    base = -(-reserved // alignment) * alignment
    packed = [g for g in groups if merged(g).packed_size > 0]
    problem, rigid, first = _pieces_problem(packed, alignment,
                                            None if capacity is None else max(0, capacity - base))
    incumbents: dict[str, tuple[int, ...]] = {}
    if placed is not None:
        incumbents["placement"] = tuple(o for g, o in zip(groups, placed, strict=True)
                                        if merged(g).packed_size > 0)
    runtime = arena.runtime
    if runtime is not None and _runtime_holds(runtime, name, groups):
        incumbents[runtime.planner] = tuple(
            runtime.offsets[g[0].key] - group_offsets(g)[g[0].key] - base for g in packed)
    if any(o < 0 for offsets in incumbents.values() for o in offsets):
        incumbents.pop(runtime.planner, None)
    if rigid:
        # The groups packed whole (each one block, the search free to move it) are a
        # plan of the pieces too: a candidate for where the rigid groups go.
        whole = Problem(tuple(Buffer(g[0].name, *merged(g).lifetime, merged(g).packed_size,
                                     max(alignment, merged(g).alignment)) for g in packed),
                        problem.capacity)
        incumbents["whole groups"] = pack(whole, PackOptions(
            exact=bool(time_limit), time_limit=time_limit)).solution.offsets
    # A plan of whole groups is a plan of their pieces, each at its offset in the block.
    incumbents = {k: tuple(o + p.offset for o, g in zip(v, packed, strict=True)
                           for p in pieces(g))
                  for k, v in incumbents.items()}
    solved = pack(problem, PackOptions(
        exact=bool(time_limit), time_limit=time_limit, incumbents=incumbents,
        rigid=tuple(rigid), rigid_bases={"stacked": _stacked(rigid, problem)} if rigid else None))
    starts = [solved.solution.offsets[i] - pieces(g)[0].offset
              for g, i in zip(packed, first, strict=True)]
    offsets: dict[Key, int] = {}
    for g in groups:
        for b in g:
            offsets[b.key] = base  # an empty buffer occupies no bytes
    for g, off in zip(packed, starts, strict=True):
        at = group_offsets(g)
        for b in g:
            offsets[b.key] = base + off + at[b.key]
    if runtime is not None and (runtime.planner not in incumbents or (
            runtime_ties and solved.chosen != runtime.planner)) and _runtime_covers(
            runtime, name, groups):
        # The runtime's plan keeps sharers apart (its own view shares nothing): a valid plan
        # that the merged problem cannot take as an incumbent. The written plan is never
        # worse than the runtime alone: keep it whole when it is lower (or, for a front end
        # that keeps its own output, no higher: pack() keeps an incumbent only when lower).
        solved, offsets = _keep_runtime_if_lower(solved, runtime, groups, base, alignment,
                                                 problem.capacity, offsets, time_limit,
                                                 runtime_ties)
    pad = arena.padding if groups else 0
    return ArenaPlan(
        name, tuple(b for g in groups for b in g), offsets, base + solved.peak + pad,
        base + solved.lower_bound + pad, solved.status, solved.chosen, solved,
        runtime.sizes.get(name) if runtime is not None else None, capacity, reserved,
        time.perf_counter() - started, spills)


def _pieces_problem(groups: list[list[BufferRequest]], alignment: int, capacity: int | None
                    ) -> tuple[Problem, list[Rigid], list[int]]:
    """The packing problem of these share groups: one buffer per piece (`buffers.pieces`).
    The pieces of a group of several keep their relative offsets: a rigid group
    (`pack.rigid`). Also the index of each group's first piece."""
    found: list[Buffer] = []
    rigid: list[Rigid] = []
    first: list[int] = []
    for g in groups:
        first.append(len(found))
        align = max(alignment, merged(g).alignment)
        parts = pieces(g)
        if len(parts) < 2:  # one block: neither released in parts nor staggered
            found.append(Buffer(g[0].name, *merged(g).lifetime, merged(g).packed_size, align))
            continue
        rigid.append(Rigid(tuple(range(len(found), len(found) + len(parts))),
                           tuple(p.offset for p in parts), align))
        for p in parts:
            # A piece is aligned as far as its offset inside the block allows.
            found.append(Buffer(f"{g[0].name} [{p.offset}:{p.offset + p.size}]", p.start,
                                p.end, p.size, math.gcd(align, p.offset) if p.offset else align))
    return Problem(tuple(found), capacity), rigid, first


def _stacked(rigid: list[Rigid], problem: Problem) -> tuple[int, ...]:
    """The rigid groups stacked from the base, in order: apart from one another whatever
    their lifetimes (the placement before first fits, kept as a candidate)."""
    bases, top = [], 0
    for g in rigid:
        top = -(-top // g.alignment) * g.alignment
        bases.append(top)
        top += max(o + problem.buffers[i].size for i, o in zip(g.members, g.offsets,
                                                                strict=True))
    return tuple(bases)


def _runtime_covers(runtime, name: str, groups: list[list[BufferRequest]]) -> bool:
    keys = {b.key for g in groups for b in g}
    if any(k not in runtime.offsets for k in keys):
        return False
    if runtime.spaces:
        return all(runtime.spaces.get(k) == name for k in keys) and not any(
            s == name and k not in keys for k, s in runtime.spaces.items())
    return True


def _keep_runtime_if_lower(solved: PackResult, runtime, groups: list[list[BufferRequest]],
                           base: int, alignment: int, capacity: int | None,
                           offsets: dict[Key, int], time_limit: float | None,
                           ties: bool = False) -> tuple[PackResult, dict[Key, int]]:
    flat = [b for g in groups for b in g if b.packed_size > 0]
    problem = Problem(tuple(Buffer(b.name, *b.lifetime, b.packed_size,
                                   max(alignment, b.alignment)) for b in flat), capacity)
    kept = Solution(tuple(runtime.offsets[b.key] - base for b in flat), runtime.planner)
    if any(o < 0 for o in kept.offsets):
        return solved, offsets
    peak = kept.peak(problem)
    if peak > solved.peak or (peak == solved.peak and not ties):
        return solved, offsets
    validate(problem, kept, check_capacity=False)
    bound = solved.lower_bound
    if peak == solved.peak:  # the same size: what memplan's search proved of it holds
        result = dataclasses.replace(solved, problem=problem, solution=kept,
                                     chosen=runtime.planner)
    else:
        status = (PlanStatus.AT_BOUND if peak <= bound else PlanStatus.GAP if time_limit
                  else PlanStatus.HEURISTIC)
        result = PackResult(problem, kept, bound, peak, 0.0, status, chosen=runtime.planner)
    offsets = dict(offsets)
    for b in flat:
        offsets[b.key] = runtime.offsets[b.key]
    return result, offsets


def _runtime_holds(runtime, name: str, groups: list[list[BufferRequest]]) -> bool:
    """The runtime's plan is an incumbent for this space only when it put exactly these
    buffers there, each share group as one block."""
    for g in groups:
        if any(b.key not in runtime.offsets for b in g):
            return False
        if runtime.spaces and any(runtime.spaces.get(b.key) != name for b in g):
            return False
        if not _block_held(runtime, g):
            return False
    if runtime.spaces:
        mine = {b.key for g in groups for b in g}
        if any(s == name and k not in mine for k, s in runtime.spaces.items()):
            return False
    return True


def _block_held(runtime, group: list[BufferRequest]) -> bool:
    """The runtime placed the group as one block: each member at its place in it."""
    at = group_offsets(group)
    return len({runtime.offsets.get(b.key, 0) - at[b.key] for b in group}) == 1


def pool_split(view: ModelView, target: Target | None, peak: int) -> PoolSplit | None:
    """Only when the one arena does not fit the target's first pool (report only)."""
    if target is None or len(target.pools) < 2 or peak <= target.pools[0].capacity:
        return None
    from ..place.policy import place

    pools_only = dataclasses.replace(target, stack=None, heap=None)
    groups = [g for arena in view.arenas for g in share_groups(arena.buffers)]
    requests = [merged(g) for g in groups]
    return PoolSplit(place(requests, pools_only), tuple(tuple(g) for g in groups))


# --- checking what was written ----------------------------------------------------------

def check_written(fe: FrontEnd, view: ModelView, arenas: Sequence[ArenaPlan],
                  written: bytes) -> None:
    """Read the written model back as the runtime would and check its plan on its own."""
    back = fe.read_back(view, written)
    for arena in arenas:
        got = back.get(arena.name)
        if got is None:
            raise PlanCheckError(f"{view.path}: arena {arena.name} missing from the written "
                                 "model")
        # A buffer the model names (details) must come back at its offset; others (TFLM's
        # scratch buffers) are the runtime's to place around the plan.
        missing = [k for k in arena.offsets if k not in got and k in view.details]
        extra = [k for k in got if k not in arena.offsets]
        if missing or extra or any(got[k] != arena.offsets[k] for k in got):
            raise PlanCheckError(f"{view.path}: the plan read back differs from the plan "
                                 f"written (arena {arena.name})")
        alignment = max((b.alignment for b in arena.packing.problem.buffers), default=1)
        found = offline_plan_problems(list(arena.buffers), dict(got), alignment)
        if found:
            raise PlanCheckError(f"{view.path}: the written plan is unsound: {found[0]}")


# --- running ----------------------------------------------------------------------------

class RunFailure(Exception):
    """The runtime could not confirm the plan: one line, and the exit status it means
    (1: the planned model fails where the original ran; 2: the runtime cannot run the
    input at all)."""

    def __init__(self, line: str, exit_code: int):
        super().__init__(line)
        self.exit_code = exit_code


def check_run(fe: FrontEnd, plan: ModelPlan, seed: int = 0, step: Step = no_step) -> RunCheck:
    """Run the original and the written model on the runtime, in a child process."""
    from .child import RUN_MEMORY, Crash, Refusal, run_in_child

    if plan.written is None:
        raise ValueError("check_run needs the written model")
    if plan.own is not None:
        raise ValueError("the runtime's own output was kept: nothing of memplan's to run")
    original = fe.original(plan.view)
    step(f"running both models on {fe.runtime}")
    answer = run_in_child(fe.name, original, plan.written, seed, resident=RUN_MEMORY)
    if isinstance(answer, RunCheck):
        return answer
    path = plan.view.path
    if isinstance(answer, Refusal):
        if answer.which == "original":
            raise RunFailure(f"{path}: {fe.runtime} cannot run this model: {answer.reason}", 2)
        raise RunFailure(f"{path}: {fe.runtime} refuses the planned model: {answer.reason}", 1)
    assert isinstance(answer, Crash)
    how = (f"was stopped: it {answer.stopped}" if answer.stopped else
           f"crashed ({answer.signal})" if answer.signal else f"failed (exit {answer.status})")
    where = f" {answer.what}" if answer.what else ""
    model = {"original": " on the input model", "planned": " on the planned model"}.get(
        answer.which or "", "")
    raise RunFailure(f"{path}: {fe.runtime} {how}{model}{where}",
                     1 if answer.which == "planned" else 2)


def over_budget(plan: ModelPlan, budget: int) -> str | None:
    """Why the plan is over `budget` bytes (None when within), and whether any plan fits."""
    if plan.total <= budget:
        return None
    if len(plan.arenas) == 1:
        bound = plan.lower_bound
        proven = plan.arenas[0].proof in (PlanStatus.AT_BOUND, PlanStatus.OPTIMAL)
    else:
        # Another split over the pools could fit where this one does not: only the bytes
        # live at once over every arena together bound every plan, and no per-arena proof
        # says anything of another split.
        together = [b for a in plan.arenas for b in a.packing.problem.buffers]
        bound = lower_bound(Problem(together)) + sum(a.reserved for a in plan.arenas)
        proven = False
    why = (f"no plan can: {bound:,} B are live at once" if bound > budget else
           "no plan can (the exact solver proved memplan's minimal)" if proven else
           f"not proven either way (lower bound {bound:,} B)")
    return f"memplan's plan takes {plan.total:,} B, over the budget of {budget:,} B; {why}"


__all__ = ["ArenaPlan", "ModelPlan", "PlanCheckError", "RunFailure", "Spill", "check_run",
           "check_written", "held", "over_budget", "own_output", "peak_note", "peak_tensors",
           "plan_arena", "plan_model"]
