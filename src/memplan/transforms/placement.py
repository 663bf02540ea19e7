"""Write a placement into the IR.

Matches: the allocation ops the placement decided on, found by their
function and source location (the census key).

Rewrites, per decision:
- stack: `memref.alloc` becomes `memref.alloca` (its `memref.dealloc`s are
  erased: an alloca is freed when the function returns);
- a pool: the allocation's type gets the pool's name as its memory space
  (`memref<64xf32, "sram">`) and a `memref.memory_space_cast` back to the
  original type feeds every user, so no user or callee signature changes;
- heap: `memref.alloca` becomes `memref.alloc` with a `memref.dealloc` before
  the terminator of its block (where the alloca's scope would have freed it).
Every placed op also records `memplan.space` and, where the space has static
offsets, `memplan.offset` (bytes into the pool, or into the function's frame).

Leaves alone: allocations the placement left where the IR put them
(workgroup memory, foreign memory spaces) and ones with nowhere to go.
The module is modified in place; callers parse a fresh copy of the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from iree.compiler import ir

from ..analysis.census import take_census
from ..analysis.devices import ALLOC_OPS, AllocKey, function_name
from ..analysis.ranges import Assumption
from ..errors import InputError
from ..ir import MlirChunk, source_loc
from ..place.module import place_chunk
from ..place.policy import HEAP, STACK, Decision, Placement
from ..place.requests import alloc_key
from ..report.placement_report import format_unplaced
from ..targets import Target

SPACE_ATTR = "memplan.space"
OFFSET_ATTR = "memplan.offset"


def place_chunks(chunks: Sequence[MlirChunk], target: Target,
                 assumptions: Sequence[Assumption] = ()) -> list[str]:
    """Place every chunk's census on `target` and rewrite the chunks to follow it (`memplan
    opt --place`); returns one error line per allocation with nowhere to go (left as is)."""
    errors = []
    for chunk in chunks:
        placement = place_chunk(chunk, take_census(chunk, assumptions), target)
        apply_placement(chunk.module, placement, chunk.path)
        errors += format_unplaced([placement], chunk.path)
    return errors


def apply_placement(module: ir.Module, placement: Placement, path: str) -> int:
    """Rewrite `module` to follow `placement`; returns how many allocations changed."""
    ops = _allocation_ops(module, path)
    pools = {p.name for p in placement.target.pools}
    changed = 0
    for decision in placement.decisions:
        key = alloc_key(decision.allocation)
        if not decision.placed or key is None:
            continue
        op = ops.get(key)
        if op is None:
            raise InputError(path, f"allocation in @{key[0]} not found in the IR", key[1])
        if decision.space == STACK:
            op = _to_alloca(op)
        elif decision.space in pools:
            op = _to_pool(op, decision.space)
        elif decision.space == HEAP:
            op = _to_alloc(op)
        else:
            continue  # a space the IR fixed: nothing to write
        _record(op, decision)
        changed += 1
    return changed


def _allocation_ops(module: ir.Module, path: str) -> dict[AllocKey, ir.Operation]:
    found: dict[AllocKey, ir.Operation] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        op = op.operation
        if op.name in ALLOC_OPS:
            loc = source_loc(op, path)
            function = function_name(op)
            if loc is not None and function is not None:
                found[(function, loc.line, loc.col)] = op
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _to_alloca(op: ir.Operation) -> ir.Operation:
    if op.name == "memref.alloca":
        return op
    for use in list(op.results[0].uses):
        if use.owner.name == "memref.dealloc":
            use.owner.erase()
    return _replace_kind(op, "memref.alloca")


def _to_alloc(op: ir.Operation) -> ir.Operation:
    if op.name != "memref.alloca":
        return op
    new = _replace_kind(op, "memref.alloc")
    block = new.block
    terminator = block.operations[len(block.operations) - 1]
    ir.Operation.create("memref.dealloc", operands=[new.results[0]], loc=new.location,
                        ip=ir.InsertionPoint(terminator))
    return new


def _to_pool(op: ir.Operation, pool: str) -> ir.Operation:
    old_value = op.results[0]
    old_type = ir.MemRefType(old_value.type)
    with op.context, op.location:
        new_type = ir.MemRefType.get(old_type.shape, old_type.element_type, old_type.layout,
                                     ir.StringAttr.get(pool))
    old_value.set_type(new_type)
    deallocs = [u.owner for u in old_value.uses if u.owner.name == "memref.dealloc"]
    cast = ir.Operation.create("memref.memory_space_cast", results=[old_type],
                               operands=[old_value], loc=op.location,
                               ip=ir.InsertionPoint.after(op))
    # Every user keeps the type it was written against; only deallocs see the pool.
    old_value.replace_all_uses_except(cast.results[0], cast)
    for dealloc in deallocs:
        dealloc.operation.replace_uses_of_with(cast.results[0], old_value)
    return op


def _replace_kind(op: ir.Operation, name: str) -> ir.Operation:
    named = (op.attributes[i] for i in range(len(op.attributes)))
    attributes = {a.name: a.attr for a in named}
    new = ir.Operation.create(name, results=[op.results[0].type], operands=list(op.operands),
                              attributes=attributes, loc=op.location,
                              ip=ir.InsertionPoint(op))
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()
    return new


def _record(op: ir.Operation, decision: Decision) -> None:
    with op.context:
        op.attributes[SPACE_ATTR] = ir.StringAttr.get(decision.space or "")
        if decision.offset is not None:
            op.attributes[OFFSET_ATTR] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), decision.offset)
