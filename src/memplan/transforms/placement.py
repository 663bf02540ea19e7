"""Write a placement into the IR, with the packed layout made real.

Matches: the allocation ops the placement decided on (each census record holds
its op).

Rewrites, per decision:
- stack: the function gets one frame buffer at its entry,
  `memref.alloca() alignment = A : memref<FRAMExi8>` (FRAME = the packed peak),
  and each buffer becomes `memref.view %frame[%offset][sizes]` at the planned
  offset: the frame the planner bounded is the frame the program allocates;
- a pool: the module gets one `memref.global "private" @memplan_pool_NAME :
  memref<PEAKxi8, "NAME"> = uninitialized`; each function takes it with
  `memref.get_global` and each buffer becomes a view at its planned offset,
  followed by a `memref.memory_space_cast` back to the original type so no user
  or callee signature changes (TVM USMP's pool + offset, in MLIR);
- heap: `memref.alloca` becomes `memref.alloc` with a `memref.dealloc` before
  the terminator of its block (where the alloca's scope would have freed it);
  a `memref.alloc` stays as it is.
Deallocs of buffers moved into a frame or pool are erased. Each rewritten op
records `memplan.space` and, where the space has offsets, `memplan.offset`.

Falls back, when a buffer cannot be a view: a memref of non-identity layout
goes to the stack as a `memref.alloca` of its own, to a pool with the pool as
the memory space of its type (`memref<64xf32, "sram">`) plus a cast; a
`bufferization.alloc_tensor` gets `memory_space = "sram"` for a pool and is
left to bufferization otherwise. The offset is then recorded but left to a
later lowering.
Leaves alone: allocations whose memory space the IR fixed (workgroup memory)
and ones with nowhere to go. The module is modified in place; callers parse
a fresh copy of the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from iree.compiler import ir

from ..analysis.census import take_census
from ..analysis.ranges import Assumption
from ..frontends.mlir_census import MlirPlacement, place_chunk, unplaced_diagnostics
from ..ir import MlirChunk
from ..ir.ops import DEALLOCATION_OPS, MEMREF_ALLOCATION_OPS
from ..ir.types import has_identity_layout
from ..ir.walk import function_of, symbol_name
from ..place.model import HEAP, STACK, Assignment
from ..targets import Target
from .rewrite_report import RewriteReport

SPACE_ATTR = "memplan.space"
OFFSET_ATTR = "memplan.offset"


def place_and_apply(chunk: MlirChunk, target: Target, assumptions: Sequence[Assumption] = ()
                    ) -> tuple[MlirPlacement, RewriteReport]:
    """Place the chunk's census on `target` and rewrite the chunk to follow it (`memplan opt
    --place`); an allocation with nowhere to go is left as it is, with an error."""
    placement = place_chunk(chunk, take_census(chunk, assumptions), target)
    apply_placement(chunk.module, placement)
    report = RewriteReport()
    for diag in unplaced_diagnostics(placement):
        report.add_refused(diag)
    return placement, report


def apply_placement(module: ir.Module, placement: MlirPlacement) -> int:
    """Rewrite `module` (the one the placement's census was taken of) to follow
    `placement`; returns how many allocations changed."""
    layout = _Layout(module, placement)
    changed = 0
    ours = {STACK, HEAP} | {pool.name for pool in placement.target.pools}
    for decision, allocation in placement.with_allocations():
        op = allocation.op
        if decision.space not in ours or op is None or op.name not in \
                MEMREF_ALLOCATION_OPS | {"bufferization.alloc_tensor"}:
            continue  # nowhere to go, or a space the IR fixed (workgroup): nothing to write
        if decision.space == STACK:
            op = _into_frame(op, layout, decision)
        elif decision.space == HEAP:
            op = _to_alloc(op)
        else:
            op = _into_pool(op, layout, decision)
        _record(op, decision)
        changed += 1
    return changed


class _Layout:
    """The frame buffer of each function and the global of each pool, made on first use."""

    def __init__(self, module: ir.Module, placement: MlirPlacement):
        self.module = module
        self.placement = placement
        self.frames: dict[str, ir.Value] = {}
        self.pool_globals: dict[str, str] = {}
        self.pool_bases: dict[tuple[str, str], ir.Value] = {}

    def frame(self, op: ir.Operation) -> ir.Value:
        func = _function_op(op)
        name = symbol_name(func)
        if name not in self.frames:
            size = _peak(self.placement, STACK, name)
            stack = self.placement.target.stack
            alignment = self._alignment(STACK, name, stack.alignment if stack else 1)
            with op.context, func.location:
                frame_type = ir.MemRefType.get([size], ir.IntegerType.get_signless(8))
                frame = ir.Operation.create(
                    "memref.alloca", results=[frame_type],
                    attributes={"alignment": _i64(alignment),
                                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0]),
                                SPACE_ATTR: ir.StringAttr.get(STACK)},
                    ip=ir.InsertionPoint.at_block_begin(func.regions[0].blocks[0]))
            self.frames[name] = frame.results[0]
        return self.frames[name]

    def pool_base(self, op: ir.Operation, pool: str) -> ir.Value:
        func = _function_op(op)
        key = (symbol_name(func), pool)
        if key not in self.pool_bases:
            symbol = self._pool_global(op, pool)
            with op.context, func.location:
                base = ir.Operation.create(
                    "memref.get_global", results=[self._pool_type(op, pool)],
                    attributes={"name": ir.FlatSymbolRefAttr.get(symbol)},
                    ip=ir.InsertionPoint.at_block_begin(func.regions[0].blocks[0]))
            self.pool_bases[key] = base.results[0]
        return self.pool_bases[key]

    def _pool_global(self, op: ir.Operation, pool: str) -> str:
        if pool not in self.pool_globals:
            symbol = _fresh_symbol(self.module, f"memplan_pool_{pool}")
            target_pool = self.placement.target.pool(pool)
            alignment = self._alignment(pool, None, target_pool.alignment if target_pool else 1)
            with op.context, self.module.operation.location:
                ir.Operation.create(
                    "memref.global",
                    attributes={"sym_name": ir.StringAttr.get(symbol),
                                "sym_visibility": ir.StringAttr.get("private"),
                                "type": ir.TypeAttr.get(self._pool_type(op, pool)),
                                "initial_value": ir.UnitAttr.get(),
                                "alignment": _i64(alignment)},
                    ip=ir.InsertionPoint.at_block_begin(self.module.body))
            self.pool_globals[pool] = symbol
        return self.pool_globals[pool]

    def _pool_type(self, op: ir.Operation, pool: str) -> ir.MemRefType:
        with op.context, op.location:
            return ir.MemRefType.get([_peak(self.placement, pool, None)],
                                     ir.IntegerType.get_signless(8), None,
                                     ir.StringAttr.get(pool))

    def _alignment(self, space: str, function: str | None, base: int) -> int:
        """The base must be as aligned as the most aligned buffer placed at an offset in it."""
        wanted = [d.request.alignment for d in self.placement.decisions
                  if d.space == space and (function is None or d.request.scope == function)]
        return max([base, *wanted])


def _into_frame(op: ir.Operation, layout: _Layout, decision: Assignment) -> ir.Operation:
    if not _viewable(op) or decision.offset is None:
        return _to_alloca(op)
    return _replace_by_view(op, layout.frame(op), decision.offset, None)


def _into_pool(op: ir.Operation, layout: _Layout, decision: Assignment) -> ir.Operation:
    pool = decision.space or ""
    if op.name == "bufferization.alloc_tensor":
        # A tensor has no address yet: name the pool, bufferization allocates the buffer there.
        with op.context:
            op.attributes["memory_space"] = ir.StringAttr.get(pool)
        return op
    if not _viewable(op) or decision.offset is None:
        return _to_pool(op, pool)
    return _replace_by_view(op, layout.pool_base(op, pool), decision.offset,
                            ir.StringAttr.get(pool, op.context))


def _viewable(op: ir.Operation) -> bool:
    """`memref.view` makes identity-layout memrefs out of a flat byte buffer."""
    if op.name not in MEMREF_ALLOCATION_OPS:
        return False
    return has_identity_layout(op.results[0].type)


def _replace_by_view(op: ir.Operation, base: ir.Value, offset: int,
                     space: ir.Attribute | None) -> ir.Operation:
    old_type = ir.MemRefType(op.results[0].type)
    _erase_deallocs(op.results[0])
    with op.context, op.location:
        ip = ir.InsertionPoint(op)
        index = ir.IndexType.get()
        shift = ir.Operation.create("arith.constant", results=[index],
                                    attributes={"value": ir.IntegerAttr.get(index, offset)}, ip=ip)
        view_type = ir.MemRefType.get(old_type.shape, old_type.element_type, None,
                                      space if space is not None else old_type.memory_space)
        sizes = list(op.operands)  # identity layout: the operands are the dynamic sizes
        view = ir.Operation.create("memref.view", results=[view_type],
                                   operands=[base, shift.results[0], *sizes], ip=ip)
        result = view.results[0]
        if view_type != old_type:
            result = ir.Operation.create("memref.memory_space_cast", results=[old_type],
                                         operands=[result], ip=ip).results[0]
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return view


def _erase_deallocs(value: ir.Value) -> None:
    for use in list(value.uses):
        if use.owner.name in DEALLOCATION_OPS:
            use.owner.erase()


def _function_op(op: ir.Operation) -> ir.Operation:
    func = function_of(op)
    assert func is not None, "allocations live in functions (the census only walks them)"
    return func


def _fresh_symbol(module: ir.Module, base: str) -> str:
    taken = {symbol_name(op) for op in module.body.operations if "sym_name" in op.attributes}
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _peak(placement: Placement, space: str, function: str | None) -> int:
    return next(u.peak for u in placement.usage if u.space == space and u.function == function)


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _to_alloca(op: ir.Operation) -> ir.Operation:
    if op.name != "memref.alloc":
        return op
    _erase_deallocs(op.results[0])
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
    deallocs = [u.owner for u in old_value.uses if u.owner.name in DEALLOCATION_OPS]
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


def _record(op: ir.Operation, decision: Assignment) -> None:
    with op.context:
        op.attributes[SPACE_ATTR] = ir.StringAttr.get(decision.space or "")
        if decision.offset is not None:
            op.attributes[OFFSET_ATTR] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), decision.offset)
