"""Transient allocations IREE keeps apart from a region's arena, folded into it.

IREE packs only the transients of one execution region (`iree-stream-layout-slices`
lays out one `stream.resource.pack`); a transient made by one region and read by a
later one (a hoisted constant copied, then updated in place: ViT-B/16's 605,184 B) is a
`stream.resource.alloca` of its own, held beside the arena. Here such an allocation
becomes one more slice of the pack of the last region that uses it: the pack and its
arena's `alloca` move up to where the allocation was, the allocation becomes a
`stream.resource.subview` of the arena at the new slice's offset, and its users await
the arena. The plan of that pack is then one plan for both.

What is folded: a transient `alloca` of static size whose users are `stream.cmd.execute`
regions of its block (and its `dealloca`), the last of them the region of a pack whose
sizes are all static, on the same device; while it alone was allocated (no other transient allocation alive between it and
the arena), so holding the arena from there raises no peak. Its slice is alive from the
region's start to the step of its last reader there, `[0, e]`.

The step: IREE numbers a region's ops before it lowers them to commands
(`ScheduleAllocation.cpp`, `computeExecutionRegionLivenessIntervals`), and each of those
ops becomes at most one top-level command (a transfer's `invalidate`/`flush` aside, not
counted here), in order. So command steps strictly increase, and a command that reaches
slice j (its offset a pack result) runs at a step within j's interval. `e` is the
smallest step the last reader can have at most under both facts; the facts are checked
to admit a numbering of every command, else nothing is folded.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from ...ir.walk import OpOrder, defining_op, functions, int_constant, symbol_name, users, walk

ALLOCA = "stream.resource.alloca"
DEALLOCA = "stream.resource.dealloca"
EXECUTE = "stream.cmd.execute"
PACK = "stream.resource.pack"
# A transfer lowers to up to three commands; only its copy is counted as its step. Ops of
# a region that are not commands (its terminator) are no step either.
_NOT_A_STEP = frozenset({"stream.cmd.invalidate", "stream.cmd.flush"})
# Index arithmetic an offset into a slice may go through (a subrange of the slice).
_OFFSET_ARITHMETIC = frozenset({"arith.addi", "arith.subi", "arith.muli"})


@dataclass(frozen=True)
class FoldedAlloca:
    """A transient allocation that became a slice of a pack."""

    function: str
    pack: int  # the pack's index among the function's packs
    slice: int
    size: int
    end: int  # its interval is [0, end]
    location: str


def fold_transients(module: ir.Module | ir.Operation) -> list[FoldedAlloca]:
    """Fold every allocation that qualifies (see the module's doc), in place."""
    folded = []
    for func in functions(module):
        if func.name == "func.func":  # device code
            continue
        with func.context:
            while (one := _fold_one(func)) is not None:
                folded.append(one)
    return folded


def _is_transient_alloca(op: ir.Operation) -> bool:
    return op.name == ALLOCA and "transient" in str(op.results[0].type)


def _fold_one(func: ir.Operation) -> FoldedAlloca | None:
    ops = walk(func)
    order = OpOrder.of(func)
    packs = [op for op in ops if op.name == PACK]
    allocas = [op for op in ops if _is_transient_alloca(op)]
    for index, pack in enumerate(packs):
        arena = next((u for u in users(pack.results[0]) if _is_transient_alloca(u)), None)
        if arena is None:
            continue
        region = _only_region(arena)
        if region is None:
            continue
        for candidate in allocas:
            if candidate == arena or not _foldable(candidate, arena, pack, region, packs,
                                                   allocas, order):
                continue
            end = _last_step(region, candidate, pack)
            if end is None:
                continue
            size = int_constant(candidate.operands[0])
            assert size is not None
            folded = FoldedAlloca(symbol_name(func), index, len(pack.results) - 1, size, end,
                                  str(candidate.location))
            _rewrite(candidate, arena, pack, end, size)
            return folded
    return None


def _only_region(arena: ir.Operation) -> ir.Operation | None:
    """The one region that uses the arena (others only free it), else None."""
    regions = [u for u in users(arena.results[0]) if u.name == EXECUTE]
    others = [u for u in users(arena.results[0]) if u.name not in (EXECUTE, DEALLOCA)]
    return regions[0] if len(regions) == 1 and not others else None


def _foldable(candidate: ir.Operation, arena: ir.Operation, pack: ir.Operation,
              region: ir.Operation, packs: list[ir.Operation], allocas: list[ir.Operation],
              order: OpOrder) -> bool:
    block = candidate.parent
    if not (arena.parent == block and pack.parent == block and region.parent == block):
        return False
    at, pack_at = order.position[candidate], order.position[pack]
    if at > pack_at or int_constant(candidate.operands[0]) is None:
        return False
    if _affinity(candidate) != _affinity(arena):
        return False
    uses = users(candidate.results[0])
    regions = [u for u in uses if u.name == EXECUTE]
    if region not in regions or any(u.name not in (EXECUTE, DEALLOCA) for u in uses):
        return False
    if any(u.parent != block or order.position[u] > order.position[region] for u in regions):
        return False
    if any(order.position[d] < order.position[region] for d in uses if d.name == DEALLOCA):
        return False
    if any(at < order.position[p] < pack_at for p in packs):
        return False
    # Nothing else transient alive between the two: the arena held from here adds no peak.
    end_of_function = len(order.position)
    for other in allocas:
        if other in (candidate, arena):
            continue
        freed = [order.position[u] for u in users(other.results[0]) if u.name == DEALLOCA]
        start, end = order.position[other], max(freed, default=end_of_function)
        if start < order.position[arena] and end > at:
            return False
    # A static pack: its sizes are known where it moves to, and memplan (not IREE's
    # layout of a runtime size) plans the folded arena.
    return all(int_constant(v) is not None for v in pack.operands)


def _affinity(op: ir.Operation) -> str | None:
    return str(op.attributes["affinity"]) if "affinity" in op.attributes else None


def _slices_reached(op: ir.Operation, pack: ir.Operation) -> set[int]:
    results = {r: i - 1 for i, r in enumerate(pack.results) if i > 0}
    reached: set[int] = set()
    for inner in [op, *walk(op)]:
        for value in inner.operands:
            stack = [value]
            while stack:
                v = stack.pop()
                if v in results:
                    reached.add(results[v])
                    continue
                owner = defining_op(v)
                if owner is not None and owner.name in _OFFSET_ARITHMETIC:
                    stack.extend(owner.operands)
    return reached


def _last_step(region: ir.Operation, candidate: ir.Operation, pack: ir.Operation
               ) -> int | None:
    """The latest step of the region at which the candidate can still be read, or None
    when the region's commands admit no numbering under the facts in the module's doc."""
    count = ir.DenseI32ArrayAttr(region.attributes["operandSegmentSizes"])[0]
    block = region.regions[0].blocks[0]
    arguments = [block.arguments[i] for i, v in enumerate(list(region.operands)[:count])
                 if v == candidate.results[0]]
    bounds = list(ir.ArrayAttr(pack.attributes["lifetime_intervals"]))
    starts = [ir.IntegerAttr(b).value for b in bounds[0::2]]
    ends = [ir.IntegerAttr(b).value for b in bounds[1::2]]
    steps = [op for op in block.operations
             if op.name.startswith("stream.cmd.") and op.name not in _NOT_A_STEP]
    low, high, last = [], [], -1
    for position, op in enumerate(steps):
        reached = _slices_reached(op, pack)
        low.append(max((starts[j] for j in reached), default=0))
        high.append(min((ends[j] for j in reached), default=None))
        if any(v in arguments for inner in [op, *walk(op)] for v in inner.operands):
            last = position
    # Strictly increasing steps: each bound narrowed by its neighbours'.
    for q in range(1, len(steps)):
        low[q] = max(low[q], low[q - 1] + 1)
    for q in range(len(steps) - 2, -1, -1):
        if high[q + 1] is not None:
            high[q] = high[q + 1] - 1 if high[q] is None else min(high[q], high[q + 1] - 1)
    if any(h is not None and lo > h for lo, h in zip(low, high, strict=True)):
        return None
    if last < 0:
        return 0
    if high[last] is not None:
        return high[last]
    return max(ends, default=0)


def _rewrite(candidate: ir.Operation, arena: ir.Operation, pack: ir.Operation, end: int,
             size: int) -> None:
    index = ir.IndexType.get()
    timepoint = arena.results[1].type
    with ir.InsertionPoint(candidate), candidate.location:
        sizes = []
        for v in pack.operands:
            constant = int_constant(v)
            sizes.append(v if constant is None else _constant(constant))
        new_size = _constant(size)
        segments = list(ir.DenseI32ArrayAttr(pack.attributes["operandSegmentSizes"]))
        attributes = _attributes(pack)
        attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(
            [segments[0], segments[1] + 1])
        attributes["lifetime_intervals"] = ir.ArrayAttr.get(
            [*ir.ArrayAttr(pack.attributes["lifetime_intervals"]),
             ir.IntegerAttr.get(index, 0), ir.IntegerAttr.get(index, end)])
        new_pack = ir.Operation.create(PACK, results=[index] * (len(pack.results) + 1),
                                       operands=[*sizes, new_size], attributes=attributes,
                                       loc=pack.location)
        awaited = list(candidate.operands)[1:]  # what the folded allocation waited for
        new_arena = ir.Operation.create(
            ALLOCA, results=[r.type for r in arena.results],
            operands=[new_pack.results[0], *awaited],
            attributes=_attributes(arena), loc=arena.location)
        view = ir.Operation.create(
            "stream.resource.subview", results=[candidate.results[0].type],
            operands=[new_arena.results[0], new_pack.results[0], new_pack.results[-1],
                      new_size])
    # The allocation is no longer freed on its own: what waited for its freeing waits
    # for what the freeing waited for.
    for user in users(candidate.results[0]):
        if user.name == DEALLOCA:
            _replace_timepoint(user, list(user.operands)[2:], timepoint)
            user.erase()
    candidate.results[0].replace_all_uses_with(view.results[0])
    candidate.results[1].replace_all_uses_with(new_arena.results[1])
    candidate.erase()
    for old, new in zip(pack.results, new_pack.results, strict=False):
        old.replace_all_uses_with(new)
    pack.erase()
    # The region's own wait: the arena (now ready earlier) and what the arena waited for.
    _replace_timepoint(arena, [new_arena.results[1], *list(arena.operands)[1:]], timepoint,
                       result=1)
    arena.results[0].replace_all_uses_with(new_arena.results[0])
    arena.erase()


def _constant(value: int) -> ir.Value:
    from iree.compiler.dialects import arith

    return arith.ConstantOp(ir.IndexType.get(), value).result


def _replace_timepoint(op: ir.Operation, waits: list[ir.Value], timepoint: ir.Type,
                       result: int = 0) -> None:
    """Uses of `op`'s timepoint result wait for `waits` instead (joined; an immediate
    timepoint when there are none)."""
    with ir.InsertionPoint(op), op.location:
        if len(waits) == 1:
            joined = waits[0]
        elif waits:
            joined = ir.Operation.create("stream.timepoint.join", results=[timepoint],
                                         operands=waits).results[0]
        else:
            joined = ir.Operation.create("stream.timepoint.immediate",
                                         results=[timepoint]).results[0]
    op.results[result].replace_all_uses_with(joined)


def _attributes(op: ir.Operation) -> dict[str, ir.Attribute]:
    return {name: op.attributes[name] for name in op.attributes}
